"""Verifying Hookstream's callbacks in Python (3.8 or later), with the standard library only.

Each function takes the request's headers as a dict with lower-case names and the body's exact
bytes as received (read them raw, before any JSON parsing), and returns True only for a request
Hookstream signed with what you agreed. The blocks between "--- METHOD ---" lines are the ones
docs/verifying.md and the console show; each needs COMMON.
"""
import sys

# --- COMMON ---
import base64
import hashlib
import hmac
import json
import time
from datetime import datetime
# --- end ---


# --- HMAC_SHA256 ---
# api_key: the callback key, the value our callbacks carry in key_header (X-API-Key unless agreed otherwise),
# agreed with the insurer at onboarding. Not the hsk_… API key you sign in to the console with.
# key_header, timestamp_header, signature_header: the header names agreed with you (any case).
def verify_hmac_sha256(headers, body, api_key, secret, key_header, timestamp_header, signature_header):
    timestamp = headers.get(timestamp_header.lower(), "")
    try:
        sent_at = datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return False
    if abs(time.time() - sent_at) > 5 * 60:
        return False  # a replay, or a clock far off
    signed = f"{api_key}|{timestamp}|".encode("utf-8") + body
    expected = base64.b64encode(hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).digest()).decode("ascii")
    key_ok = hmac.compare_digest(headers.get(key_header.lower(), "").encode("utf-8"), api_key.encode("utf-8"))
    return hmac.compare_digest(headers.get(signature_header.lower(), "").encode("utf-8"), expected.encode("ascii")) and key_ok
# --- end ---


# --- MD5 ---
# parts: the agreed contract, e.g. [{"kind": "SECRET"}, {"kind": "BODY_FIELD", "path": "policy_number"}, {"kind": "LITERAL", "value": "|"}];
# placement "HEADER" (target: the header's name) or "BODY_FIELD" (target: the body's top-level field).
def verify_md5(headers, body, secret, parts, placement, target):
    fields = json.loads(body.decode("utf-8"))

    def json_text(value):
        # As JavaScript's JSON.stringify writes it: 2.0 is 2, no spaces, non-ASCII as is.
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def field_text(path):
        value = fields
        for step in path.split("."):
            value = value.get(step) if isinstance(value, dict) else None
        return "" if value is None else value if isinstance(value, str) else json_text(value)

    texts = [secret if p["kind"] == "SECRET" else p["value"] if p["kind"] == "LITERAL" else field_text(p["path"]) for p in parts]
    expected = hashlib.md5("".join(texts).encode("utf-8")).hexdigest()
    received = headers.get(target.lower()) if placement == "HEADER" else fields.get(target)
    return isinstance(received, str) and hmac.compare_digest(received.encode("utf-8"), expected.encode("ascii"))
# --- end ---


# --- STANDARD_WEBHOOKS ---
# secret: "whsec_" followed by Base64, as agreed. (Any Standard Webhooks library does the same.)
def verify_standard_webhooks(headers, body, secret):
    webhook_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > 5 * 60:
        return False
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    signed = f"{webhook_id}.{timestamp}.".encode("utf-8") + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    # Several signatures may be sent, separated by spaces (while a secret is being replaced): one must match.
    return any(
        s.startswith("v1,") and hmac.compare_digest(s[3:].encode("ascii", "replace"), expected)
        for s in headers.get("webhook-signature", "").split(" ")
    )
# --- end ---


# --- API_KEY ---
# api_key: the callback key, the value our callbacks carry in header_name, agreed with the insurer at onboarding.
# Not the hsk_… API key you sign in to the console with.
# header_name: the header agreed with you (any case).
def verify_api_key(headers, body, api_key, header_name):
    return hmac.compare_digest(headers.get(header_name.lower(), "").encode("utf-8"), api_key.encode("utf-8"))
# --- end ---


# --- BEARER_STATIC ---
def verify_bearer_static(headers, body, token):
    return hmac.compare_digest(headers.get("authorization", "").encode("utf-8"), f"Bearer {token}".encode("utf-8"))
# --- end ---


# --- BASIC ---
def verify_basic(headers, body, username, password):
    scheme, _, encoded = headers.get("authorization", "").partition(" ")
    if scheme != "Basic":
        return False
    try:
        decoded = base64.b64decode(encoded, validate=True).decode("utf-8")
    except ValueError:
        return False
    user, colon, given = decoded.partition(":")
    # Both compared, whatever the first gave: the time taken says nothing of which was wrong.
    user_ok = hmac.compare_digest(user.encode("utf-8"), username.encode("utf-8"))
    password_ok = hmac.compare_digest(given.encode("utf-8"), password.encode("utf-8"))
    return bool(colon) and user_ok and password_ok
# --- end ---


# --- BEARER_JWT ---
# algorithm: "HS256", "HS384" or "HS512", issuer and lifetime_seconds as agreed. Remember each jti until its exp to refuse a replay.
def verify_bearer_jwt(headers, body, secret, algorithm, issuer, lifetime_seconds):
    def b64url(text):
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    scheme, _, token = headers.get("authorization", "").partition(" ")
    pieces = token.split(".")
    if scheme != "Bearer" or len(pieces) != 3:
        return False
    head, payload, signature = pieces
    if json.loads(b64url(head)).get("alg") != algorithm:
        return False  # never the alg the token names: the one agreed
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[algorithm]
    expected = hmac.new(secret.encode("utf-8"), f"{head}.{payload}".encode("ascii"), digest).digest()
    if not hmac.compare_digest(b64url(signature), expected):
        return False
    claims = json.loads(b64url(payload))
    iat, exp, now = claims.get("iat"), claims.get("exp"), time.time()
    if claims.get("iss") != issuer or not isinstance(iat, int) or not isinstance(exp, int):
        return False
    # 30 s for clocks apart; a token that lives longer than agreed is not ours.
    return now < exp + 30 and iat <= now + 30 and exp - iat <= lifetime_seconds
# --- end ---


VERIFIERS = {
    "HMAC_SHA256": verify_hmac_sha256,
    "MD5": verify_md5,
    "STANDARD_WEBHOOKS": verify_standard_webhooks,
    "API_KEY": verify_api_key,
    "BEARER_STATIC": verify_bearer_static,
    "BASIC": verify_basic,
    "BEARER_JWT": verify_bearer_jwt,
}

if __name__ == "__main__":
    # The test's entry: `python3 verify.py case.json` prints "valid" (exit 0) or "refused" (exit 1).
    with open(sys.argv[1], encoding="utf-8") as f:
        case = json.load(f)
    try:
        valid = VERIFIERS[case["method"]](case["headers"], base64.b64decode(case["body_base64"]), **case["config"])
    except (ValueError, KeyError, TypeError, AttributeError):
        valid = False  # a body or header that cannot be read is refused
    print("valid" if valid else "refused")
    sys.exit(0 if valid else 1)
