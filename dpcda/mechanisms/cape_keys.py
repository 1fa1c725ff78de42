"""The CAPE sites' pairwise key agreement: X25519 Diffie-Hellman, HKDF-SHA256 to a 256-bit pair key.

Every site holds, for one release, a fresh X25519 key pair whose private key is 32 bytes of its
own :class:`~dpcda.randomness.secure.SecureRandom` (RFC 7748 clamps them); only the public key
leaves the site, relayed by the coordinator. Site ``i`` computes, for every other site ``j``,
``K_ij = HKDF-SHA256(X25519(sk_i, pk_j), salt=session, info=label || i || j)`` (``i < j`` in
the info, so both ends derive the same key); ``K_ij`` keys the pair's ChaCha20 mask stream
(:meth:`~dpcda.randomness.secure.SecureRandom.from_key`). The ``session`` is 32 public random bytes
the coordinator draws per release, so keys never repeat across releases.

Authentication: an unauthenticated Diffie-Hellman relayed by the coordinator is open to the
coordinator itself (it can swap every public key for its own and learn every pair key, hence
every mask). Each site therefore signs ``(session, index, public key)`` with a long-term Ed25519
identity key whose public half the other sites know *out of band* (pinned at enrolment, not
relayed by the coordinator): :func:`verify_directory` refuses a public key whose signature does
not verify (:class:`KeyAgreementError`) before any message is computed. In the simulation the
identities are made per run and handed to the sites directly (docs/cape_engine.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcda.randomness.secure import KEY_BYTES

LABEL = b"dpcda cape pair mask key v1"
SESSION_BYTES = 32


class KeyAgreementError(RuntimeError):
    """A public key failed its check (a tampered or unsigned key): nothing is computed or sent."""


def _serial(pk) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return pk.public_bytes(Encoding.Raw, PublicFormat.Raw)


def _signed_text(session: bytes, index: int, public: bytes) -> bytes:
    return LABEL + b"|" + session + b"|" + int(index).to_bytes(4, "big") + b"|" + public


@dataclass(frozen=True)
class PublicShare:
    """What a site publishes through the coordinator: its index, X25519 public key, signature."""

    index: int
    public: bytes
    signature: bytes


class Identity:
    """A site's long-term Ed25519 signing key (its public half is pinned by the other sites)."""

    def __init__(self, source) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self._key = Ed25519PrivateKey.from_private_bytes(source.bytes(KEY_BYTES).tobytes())
        self.public = _serial(self._key.public_key())

    def sign(self, text: bytes) -> bytes:
        return self._key.sign(text)

    def __reduce__(self):
        raise TypeError("a site's identity key cannot be pickled or copied")


class KeyPair:
    """One site's per-release X25519 key pair (the private key never leaves the object)."""

    def __init__(self, index: int, source) -> None:
        from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

        self.index = int(index)
        self._sk = X25519PrivateKey.from_private_bytes(source.bytes(KEY_BYTES).tobytes())
        self.public = _serial(self._sk.public_key())

    def share(self, session: bytes, identity: Identity) -> PublicShare:
        return PublicShare(self.index, self.public,
                           identity.sign(_signed_text(session, self.index, self.public)))

    def pair_key(self, other: int, other_public: bytes, session: bytes) -> bytes:
        """The 256-bit key this site shares with site ``other`` (HKDF of the X25519 secret)."""
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF

        if int(other) == self.index:
            raise ValueError("a site shares no pair key with itself")
        try:
            secret = self._sk.exchange(X25519PublicKey.from_public_bytes(other_public))
        except ValueError as exc:  # a low-order point gives the all-zero secret: refused
            raise KeyAgreementError("a public key gives no shared secret (refused)") from exc
        i, j = sorted((self.index, int(other)))
        info = LABEL + i.to_bytes(4, "big") + j.to_bytes(4, "big")
        return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=session, info=info).derive(secret)

    def __reduce__(self):
        raise TypeError("a site's private key cannot be pickled or copied")


def verify_directory(shares, identities, session: bytes, S: int) -> dict[int, bytes]:
    """``{index: public key}`` of all ``S`` sites after checking each signature against the
    pinned identity ``identities[index]``; :class:`KeyAgreementError` on any mismatch."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    got = {int(sh.index): sh for sh in shares}
    if sorted(got) != list(range(int(S))):
        raise KeyAgreementError("the key directory must hold one public key per site")
    out = {}
    for i, sh in got.items():
        try:
            Ed25519PublicKey.from_public_bytes(identities[i]).verify(
                sh.signature, _signed_text(session, i, sh.public))
        except InvalidSignature as exc:
            raise KeyAgreementError(f"site {i}'s public key does not carry its signature (tampered "
                                    "in transit?): the release is aborted, nothing is sent") from exc
        out[i] = sh.public
    return out
