"""`toolsift bundle verify | inspect | sign | keygen`: check, read and sign bundles."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from serving.cli.root import PublicKeyOpt, VersionOpt, console, error_line, literal, write_err


def bundle_verify(
    path: Annotated[Path, typer.Argument(help="Bundle directory.")],
    bundle_version: VersionOpt = None,
    public_key: PublicKeyOpt = None,
) -> None:
    """Check the format version, every file's sha256, the version id and (with a public
    key) the signature; exit 1 when the bundle is invalid."""
    from serving.bundle.files import BundleError, read_cards, verify_bundle

    try:
        manifest = verify_bundle(path, expect_version=bundle_version, public_key=public_key)
        read_cards(path)
    except BundleError as err:  # the verdict of a check, so exit 1 like lint findings
        write_err(error_line(f"invalid bundle: {err}"))
        raise typer.Exit(1) from None
    from serving.bundle.signing import configured_public_key

    signed = ""
    if configured_public_key(public_key) is not None:
        signed = "; signature verified"
    elif manifest.signature:
        signed = "; signed, but no public key was given to check it"
    n_files = len(manifest.files)
    console.print(literal(f"ok: {manifest.bundle_version} ({n_files} files verified{signed})"))


def bundle_inspect(
    path: Annotated[Path, typer.Argument(help="Bundle directory.")],
    bundle_version: VersionOpt = None,
    public_key: PublicKeyOpt = None,
) -> None:
    """Print the manifest: version, git rev, models, params, metrics."""
    from serving.bundle.files import verify_bundle

    manifest = verify_bundle(path, expect_version=bundle_version, public_key=public_key)
    out = manifest.to_dict()
    out["files"] = len(manifest.files)
    sys.stdout.write(json.dumps(out, indent=2) + "\n")


def bundle_sign(
    path: Annotated[Path, typer.Argument(help="Bundle directory.")],
    key: Annotated[Path, typer.Option(help="Ed25519 private key (PEM, unencrypted).")],
) -> None:
    """Verify the bundle and write the Ed25519 signature of its version into the manifest."""
    from serving.bundle.files import sign_bundle

    manifest = sign_bundle(path, key)
    console.print(literal(f"signed {manifest.bundle_version} in {path}"))


def bundle_keygen(
    out: Annotated[Path, typer.Argument(help="Writes OUT (private, mode 600) and OUT.pub.")],
) -> None:
    """Make an Ed25519 key pair for `bundle sign` / `--public-key`."""
    import os

    from serving.bundle.signing import generate_keypair

    private, public = generate_keypair()
    pub = out.with_name(out.name + ".pub")
    if out.exists() or pub.exists():
        raise FileExistsError(f"{out}: exists; refusing to overwrite a key")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(private)
    pub.write_bytes(public)
    console.print(literal(f"wrote {out} (keep it secret) and {pub}"))

