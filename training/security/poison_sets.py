"""The poisoned sets scored by attack class (`lint_by_class`): the second set, the
validation set and the sets written blind, with how far each is from blind.
"""

from __future__ import annotations

from collections.abc import Sequence

from serving.model.schema import ToolCard
from training.security.poison_styles import StyledPoison, placed_set, second_set


def by_class_poisons(
    clean: Sequence[ToolCard], *, seed: int
) -> dict[str, list[StyledPoison]]:
    """The poisoned tools of each set by class: the second set (its own classes), the
    validation set (it chose the detector's bars, so in sample for them), the third to the
    seventh and the ninth set, each written blind (`training.security.poison_third_set` ...
    `poison_ninth_set`; the third to the sixth are now in the detector's fit, `SET_NOTES`;
    the eighth was read in part before any freeze and only ever fits)."""
    from training.security import poison_fifth_set as fifth
    from training.security import poison_fourth_set as fourth
    from training.security import poison_ninth_set as ninth
    from training.security import poison_seventh_set as seventh
    from training.security import poison_sixth_set as sixth
    from training.security import poison_third_set as third
    from training.security.poison_validation import VALIDATION_TEXTS

    return {
        "second": second_set(clean, seed=seed),
        "validation": placed_set(clean, VALIDATION_TEXTS, seed=seed, server_prefix="val"),
        f"third_{third.WRITTEN_ON}": placed_set(
            clean, third.THIRD_TEXTS, seed=seed, server_prefix="third"
        ),
        f"fourth_{fourth.WRITTEN_ON}": placed_set(
            clean, fourth.FOURTH_TEXTS, seed=seed, server_prefix="fourth"
        ),
        f"fifth_{fifth.WRITTEN_ON}": placed_set(
            clean, fifth.FIFTH_TEXTS, seed=seed, server_prefix="fifth"
        ),
        f"sixth_{sixth.WRITTEN_ON}": placed_set(
            clean, sixth.SIXTH_TEXTS, seed=seed, server_prefix="sixth"
        ),
        f"seventh_{seventh.WRITTEN_ON}": placed_set(
            clean, seventh.SEVENTH_TEXTS, seed=seed, server_prefix="seventh"
        ),
        f"ninth_{ninth.WRITTEN_ON}": placed_set(
            clean, ninth.NINTH_TEXTS, seed=seed, server_prefix="ninth"
        ),
    }


# how far each set is from blind, for the report (docs/experiments.md tells the history)
SET_NOTES = {
    "second": "the rules were tuned on it; the detector never saw it",
    "validation": "it chose the detector's bars (in sample for them)",
    "third": "blind when first scored (73% at error) by the detector of commit 2647650; "
    "now in the fit (in sample)",
    "fourth": "blind when first scored (73% at error) by the detector of commit 15e233f; "
    "now in the fit (in sample)",
    "fifth": "blind when first scored (92.9% at error) by the detector of commit 5891873; "
    "now in the fit (in sample)",
    "sixth": "blind when first scored (92.9% at error) by the detector of commit a3770d7; "
    "now in the fit (in sample)",
    "seventh": "blind when first scored (91.4% at error) by the detector of commit bff06de; "
    "its misses informed two rules since; not in the fit yet",
    "ninth": "written blind by a helper who opened no project file, read only after the "
    "detector and rules of commit 6936c34 froze; scored once",
}

