#!/usr/bin/env python3
"""Runs the official Trust Payments Python client (`pip install securetrading`) against the simulator.

Usage: official-client-check.py SIMULATOR_URL [USERNAME PASSWORD SITEREFERENCE]
       official-client-check.py --verify-session-jwt TOKEN SECRET

SIMULATOR_URL is the simulator's base URL (e.g. http://127.0.0.1:PORT); the client's datacenterurl is set to it and
it POSTs to /json/. The credentials default to the simulator's seed (TrustPaymentsSimulator.Seed).

Steps: an ACCOUNTCHECK with a Visa test card and credentialsonfile 1 (store the card), then a merchant-initiated
AUTH with credentialsonfile 2, initiationreason C and the account check's transactionreference as
parenttransactionreference (no card data). Exits 0 when both succeed, 1 otherwise, 2 when the client is missing.

With --verify-session-jwt, checks a session JWT the adapter minted as Trust Payments' JWT page describes one, with
Python's standard library only (the securetrading client has no JWT support): three base64url parts without padding,
the header {"alg":"HS256","typ":"JWT"}, an HMAC-SHA256 under SECRET's UTF-8 bytes, the claims iat (an integer), iss
and payload (an object) and nothing else. Prints the header and the claims as JSON and exits 0, or exits 1.
"""
import base64
import hashlib
import hmac
import json
import re
import sys

SEED_USERNAME = "ws@cardgateway.test"
SEED_PASSWORD = "ws-sandbox-password"
SEED_SITE = "test_cardgateway12345"
REFERENCE_SHAPE = re.compile(r"^\d+-\d+-\d+$")


def fail(message, response=None):
    print("FAIL: " + message, file=sys.stderr)
    if response is not None:
        safe = {key: value for key, value in response.items() if key not in ("pan", "securitycode")}
        print("      response: {0}".format(safe), file=sys.stderr)
    sys.exit(1)


def base64url_decode(text):
    if "=" in text or not re.match(r"^[A-Za-z0-9_-]*$", text):
        fail("a part of the token is not base64url without padding")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify_session_jwt(token, secret):
    parts = token.split(".")
    if len(parts) != 3:
        fail("the token does not have three parts")
    signing_input = (parts[0] + "." + parts[1]).encode("ascii")
    expected = hmac.new(secret.encode("utf-8"), signing_input, hashlib.sha256).digest()
    if not hmac.compare_digest(expected, base64url_decode(parts[2])):
        fail("the signature is not HMAC-SHA256 of the first two parts under the secret")
    header = json.loads(base64url_decode(parts[0]))
    if header != {"alg": "HS256", "typ": "JWT"}:
        fail("the header is not {\"alg\":\"HS256\",\"typ\":\"JWT\"}: " + json.dumps(header))
    claims = json.loads(base64url_decode(parts[1]))
    if sorted(claims) != ["iat", "iss", "payload"]:
        fail("the claims are not exactly iat, iss and payload: " + ", ".join(sorted(claims)))
    if not isinstance(claims["iat"], int) or isinstance(claims["iat"], bool):
        fail("iat is not an integer")
    if not isinstance(claims["iss"], str) or not isinstance(claims["payload"], dict):
        fail("iss is not a string or payload is not an object")
    print("session JWT ok")
    print("header " + json.dumps(header, sort_keys=True))
    print("claims " + json.dumps(claims, sort_keys=True))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--verify-session-jwt":
        return verify_session_jwt(argv[2], argv[3])
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import securetrading
    except ImportError:
        print("the securetrading package is not installed (pip install securetrading)", file=sys.stderr)
        return 2
    url = argv[1].rstrip("/")
    username = argv[2] if len(argv) > 2 else SEED_USERNAME
    password = argv[3] if len(argv) > 3 else SEED_PASSWORD
    site = argv[4] if len(argv) > 4 else SEED_SITE

    config = securetrading.Config()
    config.username = username
    config.password = password
    config.datacenterurl = url
    config.http_max_retries = 0
    api = securetrading.Api(config)

    store = securetrading.Request()
    store.update({
        "sitereference": site,
        "requesttypedescriptions": ["ACCOUNTCHECK"],
        "accounttypedescription": "ECOM",
        "currencyiso3a": "GBP",
        "baseamount": "0",
        "pan": "4111111111111111",
        "expirymonth": "11",
        "expiryyear": "2031",
        "securitycode": "123",
        "paymenttypedescription": "VISA",
        "credentialsonfile": "1",
    })
    result = api.process(store)
    if result.get("requestreference") != store["requestreference"]:
        fail("the account check's requestreference was not echoed")
    check = result["responses"][0]
    if check.get("errorcode") != "0":
        fail("the account check failed", check)
    parent = check.get("transactionreference", "")
    if not REFERENCE_SHAPE.match(parent):
        fail("the account check has no transactionreference in the N-N-N shape", check)
    if check.get("maskedpan") != "411111######1111":
        fail("the account check's maskedpan is not 411111######1111", check)
    print("ACCOUNTCHECK ok: transactionreference {0}, maskedpan {1}".format(parent, check.get("maskedpan")))

    charge = securetrading.Request()
    charge.update({
        "sitereference": site,
        "requesttypedescriptions": ["AUTH"],
        "accounttypedescription": "ECOM",
        "currencyiso3a": "GBP",
        "baseamount": "1050",
        "parenttransactionreference": parent,
        "credentialsonfile": "2",
        "initiationreason": "C",
    })
    result = api.process(charge)
    auth = result["responses"][0]
    if auth.get("errorcode") != "0":
        fail("the merchant-initiated AUTH failed", auth)
    if auth.get("parenttransactionreference") != parent:
        fail("the AUTH does not name the account check as its parent", auth)
    if auth.get("settlestatus") not in ("0", "1", "10", "100"):
        fail("the AUTH's settlestatus is not an authorised one", auth)
    print("AUTH (credentialsonfile 2, initiationreason C) ok: transactionreference {0}, settlestatus {1}".format(
        auth.get("transactionreference"), auth.get("settlestatus")))

    wrong = securetrading.Config()
    wrong.username = username
    wrong.password = password + "-wrong"
    wrong.datacenterurl = url
    wrong.http_max_retries = 0
    refused = securetrading.Api(wrong).process(securetrading.Request())["responses"][0]
    if refused.get("errorcode") != "6":
        fail("wrong credentials did not give the client's code 6 (HTTP 401)", refused)
    print("wrong password refused: client errorcode 6")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
