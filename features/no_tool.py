"""Requests no tool serves, for fitting and validating the no-tool decision.

Families of phrasing that need no tool in any catalog (small talk, general knowledge,
writing help, arithmetic and definitions), and two a catalog decides: capabilities it
lacks and products it does not have (`lacking_capability`, `unknown_product`, filled from
what the catalog is not). Each request carries its family as its first slice: the
`tune_menus` stage fits the no-tool model on some families and chooses its threshold on
others, so the threshold is judged on phrasing the fit never saw. The demo eval's no-tool
requests (errands: bookings, purchases, deliveries) are none of these families.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from serving.model.schema import LabeledQuery, LabeledSubgoal

FAMILIES: Mapping[str, tuple[str, ...]] = {
    "small_talk": (
        "hi there, how are you today?", "thanks, that was really helpful!",
        "good morning! long day ahead", "are you a bot or a person?",
        "what should I call you?", "haha nice one", "ok cool, never mind",
        "sorry, wrong window", "you're doing great, keep it up",
        "hello? anyone there?", "what can you do for me?", "I'm bored, talk to me",
        "happy Friday everyone!", "good night, talk tomorrow", "how was your weekend?",
        "ugh, Mondays", "lol", "that's all for now, thanks {first}",
    ),
    "knowledge": (
        "who painted the Mona Lisa?", "why is the sky blue?",
        "what is the capital of {country}?", "how far is the Moon from Earth?",
        "explain the difference between TCP and UDP", "what does HTTP 418 mean?",
        "when did the Berlin Wall fall?", "how do vaccines work?",
        "what's the difference between a process and a thread?",
        "who wrote {book}?", "what is photosynthesis?", "how many bones does an adult have?",
        "what is a monad, in simple words?", "why do cats purr?",
        "what is the speed of light in a vacuum?", "explain big-O notation briefly",
        "what language is spoken in {country}?", "is a tomato a fruit or a vegetable?",
    ),
    "writing": (
        "help me rephrase this to sound friendlier: '{sentence}'",
        "proofread this sentence: '{sentence}'",
        "give me three title ideas for a blog post about {topic}",
        "write a limerick about {topic}", "summarize the plot of {book} in two lines",
        "make this more concise: '{sentence}'", "suggest a polite way to decline a meeting",
        "draft a short thank-you note to {first} for the help last week",
        "what's a good synonym for 'important'?", "brainstorm names for a team about {topic}",
        "turn these notes into a paragraph: {topic}, deadlines, next steps",
        "write an encouraging message for a colleague's first day",
    ),
    "reasoning": (
        "what is {a} times {b}?", "convert {a} miles to kilometres",
        "is {a} a prime number?", "what's {a} divided by {b}, rounded?",
        "if a train leaves at 3pm and travels {a} km at 100 km/h, when does it arrive?",
        "what day of the week was 1 January 2000?", "how many seconds are in a week?",
        "sort these words alphabetically: pear, apple, fig",
        "what's the square root of {a}?", "how many minutes are in {a} hours?",
    ),
    "lacking_capability": (
        "could you {capability} for me?", "I need to {capability}",
        "is there a way to {capability}?", "please {capability}",
        "{capability}, if you can", "can I get help to {capability}?",
    ),
    "unknown_product": (
        "open my {product} and show what's new", "what's in my {product} today?",
        "sync my {product} account", "check {product} for anything from {first}",
        "log into {product} and grab the latest", "what did {first} share on {product}?",
    ),
}

# things an engineering/business tool catalog does not do; `lacking_capability` keeps those
# no tool of the catalog names (the demo world passes its own list)
CAPABILITIES = (
    "play some focus music", "set an alarm for 6 am", "dim the lights in the meeting room",
    "tell me tomorrow's weather", "recommend a good sci-fi novel", "find a recipe for lasagna",
    "start a meditation timer", "translate my voice live", "track my steps today",
    "water the office plants", "feed the office fish", "tune my guitar",
)
PRODUCTS = (
    "Spotify", "Netflix", "Instagram", "TikTok", "Duolingo", "Strava", "Tinder", "Fitbit",
    "Pinterest", "Snapchat", "WhatsApp", "Venmo", "Peloton", "Goodreads", "Letterboxd",
)
SLOTS: Mapping[str, tuple[str, ...]] = {
    "first": ("Maya", "Tom", "Priya", "Jonas", "Aiko", "Luis"),
    "country": ("Portugal", "Kenya", "Chile", "Vietnam", "Norway", "Canada"),
    "book": ("Moby-Dick", "Pride and Prejudice", "Dune", "The Hobbit", "Hamlet"),
    "topic": ("remote work", "coffee", "autumn", "public speaking", "cats", "mountains"),
    "sentence": ("we need this done asap", "your report was late again",
                 "pls send the thing", "i dont think this will works"),
    "a": ("12", "37", "144", "91", "250", "7"),
    "b": ("3", "8", "11", "25", "6"),
}


def no_tool_texts(
    n: int,
    rng: random.Random,
    *,
    capabilities: Sequence[str] = CAPABILITIES,
    products: Sequence[str] = PRODUCTS,
    families: Sequence[str] | None = None,
) -> list[tuple[str, str]]:
    """`n` distinct (family, text) pairs, the families in turn. `capabilities` and
    `products`: what the catalog lacks (an empty one leaves its family out)."""
    fills = {**SLOTS, "capability": tuple(capabilities), "product": tuple(products)}
    names = [f for f in (families or FAMILIES)
             if not (f == "lacking_capability" and not capabilities)
             and not (f == "unknown_product" and not products)]
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for attempt in range(n * 50):
        if len(out) == n:
            break
        family = names[attempt % len(names)]
        template = rng.choice(FAMILIES[family])
        text = template.format_map({k: rng.choice(v) for k, v in fills.items() if v})
        if text.lower() not in seen:
            seen.add(text.lower())
            out.append((family, text))
    return out


def no_tool_queries(
    texts: Sequence[tuple[str, str]],
    context: Callable[[int], Mapping[str, Any] | None],
    *,
    prefix: str = "nt",
) -> list[LabeledQuery]:
    """Labeled queries with empty gold, the family as the first slice; `context(i)`: the
    session of the i-th request (None: unrestricted)."""
    return [
        LabeledQuery(f"{prefix}-{i:05d}", text, (), (LabeledSubgoal(text, ()),),
                     dict(context(i) or {}), (family, "no_tool"))
        for i, (family, text) in enumerate(texts)
    ]
