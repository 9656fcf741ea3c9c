#!/usr/bin/env python3
"""Runs the official Trust Payments Python client (`pip install securetrading`) against the simulator.

Usage: official-client-check.py SIMULATOR_URL [USERNAME PASSWORD SITEREFERENCE]

SIMULATOR_URL is the simulator's base URL (e.g. http://127.0.0.1:PORT); the client's datacenterurl is set to it and
it POSTs to /json/. The credentials default to the simulator's seed (TrustPaymentsSimulator.Seed).

Steps: an ACCOUNTCHECK with a Visa test card and credentialsonfile 1 (store the card), then a merchant-initiated
AUTH with credentialsonfile 2, initiationreason C and the account check's transactionreference as
parenttransactionreference (no card data). Exits 0 when both succeed, 1 otherwise, 2 when the client is missing.
"""
import re
import sys

try:
    import securetrading
except ImportError:
    print("the securetrading package is not installed (pip install securetrading)", file=sys.stderr)
    sys.exit(2)

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


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
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
