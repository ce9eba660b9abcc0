"""Optional Ed25519 signatures over bundle versions (the `cryptography` package).

A bundle's version id already covers every file and the whole manifest (see
`serving.bundle.files`), so signing the version signs the bundle. The signature sits in the
manifest (`signature`, base64), the one field the version cannot cover. Verification is
on when a public key is configured: passed in, or a PEM file named by
`$TOOLSIFT_BUNDLE_PUBLIC_KEY`; then an unsigned or wrongly signed bundle is refused.
"""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path
from typing import Any

ENV_PUBLIC_KEY = "TOOLSIFT_BUNDLE_PUBLIC_KEY"
# domain separation: a toolsift signature cannot be replayed as a signature of anything else
_PREFIX = b"toolsift-bundle-version:"


class SignatureError(ValueError):
    """A key cannot be read, or a signature is missing or does not verify."""


def _ed25519() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:  # pragma: no cover - cryptography is a runtime dependency
        raise SignatureError("bundle signing needs the `cryptography` package") from None
    return ed25519


def generate_keypair() -> tuple[bytes, bytes]:
    """(private key PEM, public key PEM) of a new Ed25519 key; keep the first secret."""
    from cryptography.hazmat.primitives import serialization

    key = _ed25519().Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public


def _read_pem(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise SignatureError(f"{path}: cannot read the key: {err.strerror}") from None


def load_private_key(path: str | Path) -> Any:
    from cryptography.hazmat.primitives import serialization

    ed25519 = _ed25519()
    try:
        key = serialization.load_pem_private_key(_read_pem(path), password=None)
    except (ValueError, TypeError) as err:
        raise SignatureError(f"{path}: not an unencrypted PEM private key ({err})") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise SignatureError(f"{path}: not an Ed25519 private key")
    return key


def load_public_key(path: str | Path) -> Any:
    from cryptography.hazmat.primitives import serialization

    ed25519 = _ed25519()
    try:
        key = serialization.load_pem_public_key(_read_pem(path))
    except (ValueError, TypeError) as err:
        raise SignatureError(f"{path}: not a PEM public key ({err})") from None
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise SignatureError(f"{path}: not an Ed25519 public key")
    return key


def configured_public_key(value: Any = None) -> Any:
    """The public key to verify with: `value` (a key, or a PEM path), else the file named
    by `$TOOLSIFT_BUNDLE_PUBLIC_KEY`, else None (verification off). `False` turns it off
    whatever the environment says (signing re-checks hashes, not an old signature)."""
    if value is False:
        return None
    if value is None:
        value = os.environ.get(ENV_PUBLIC_KEY) or None
        if value is None:
            return None
    if isinstance(value, str | Path):
        return load_public_key(value)
    if not isinstance(value, _ed25519().Ed25519PublicKey):
        raise SignatureError(f"public key: expected an Ed25519 key or a PEM path, got {value!r}")
    return value


def sign_version(version: str, private_key: Any) -> str:
    """The base64 Ed25519 signature of a bundle version."""
    return base64.b64encode(private_key.sign(_PREFIX + version.encode("utf-8"))).decode("ascii")


def verify_version(version: str, signature: str, public_key: Any) -> None:
    """Raise `SignatureError` unless `signature` is `public_key`'s signature of `version`."""
    from cryptography.exceptions import InvalidSignature

    if not signature:
        raise SignatureError("unsigned, but a public key is configured")
    try:
        raw = base64.b64decode(signature, validate=True)
        public_key.verify(raw, _PREFIX + version.encode("utf-8"))
    except (binascii.Error, ValueError, InvalidSignature):
        raise SignatureError("the signature does not verify with the configured key") from None
