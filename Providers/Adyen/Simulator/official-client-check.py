#!/usr/bin/env python3
"""Drives Adyen's official Python library (pip package `Adyen`) against a running AdyenSimulator.

Usage: official-client-check.py http://127.0.0.1:PORT WEBHOOK.json

WEBHOOK.json holds deliveries the simulator signed: {"hmacKey": "<hex key>", "webhooks": [{"body": "<the JSON body as
text>", "signature": "<its HmacSignature header>"}, ...]}. Each signature must be exactly what the library's
`generate_payload_sig` computes for the body (the scheme of Adyen's banking and management webhooks, `HmacSignature`
header), and `is_valid_hmac_payload` must accept it and refuse the body changed by one byte. Exits 0 when every call behaved as it does against Adyen's test Balance Platform, 1 on the first
failure, 2 on bad usage. The simulator must be in its documented seed state (a fresh AdyenSimulator).
"""
import base64
import hashlib
import json
import sys

import Adyen
from Adyen import util
from Adyen.exceptions import AdyenAPIAuthenticationError, AdyenAPICommunicationError, AdyenAPIUnprocessableEntity

API_KEY = "AQE1simulator-adyen-api-key-with-every-role-0001"  # AdyenSimulator.Credentials.apiKey
ACTIVE_VISA = "PI32272223222C5GXTDWH3TTN"
ACTIVE_MASTERCARD = "PI3227C223222B5BPCMFXD2XG"
CLOSED_TOKEN = "NWTK00000000000000000000000004"
ACTIVE_TOKEN = "NWTK00000000000000000000000001"
# The simulated provisioning SDK answers an sdkInput with the first 12 bytes of its SHA-256 (AdyenSimulator.sdkOutput).
DIGEST_LENGTH = 12

checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


def expect_error(error_type, call, what):
    try:
        call()
    except error_type as error:
        check(True, what)
        return error
    raise AssertionError("%s: no %s raised" % (what, error_type.__name__))


def answer(sdk_input_b64, extra=b""):
    digest = hashlib.sha256(base64.b64decode(sdk_input_b64)).digest()[:DIGEST_LENGTH]
    return base64.b64encode(digest + extra).decode("ascii")


def main(base, webhook_path):
    adyen = Adyen.Adyen()
    adyen.client.xapikey = API_KEY
    adyen.client.platform = "test"
    instruments = adyen.balancePlatform.payment_instruments_api
    tokens = adyen.balancePlatform.network_tokens_api
    # The library's base URL is Adyen's test host; point both services at the simulator's /bcl/v2.
    instruments.baseUrl = base.rstrip("/") + "/bcl/v2"
    tokens.baseUrl = base.rstrip("/") + "/bcl/v2"

    # Payment instruments
    card = instruments.get_payment_instrument(ACTIVE_VISA).message
    check(card["id"] == ACTIVE_VISA and card["type"] == "card" and card["status"] == "active", "instrument id, type, status")
    check(card["card"]["lastFour"] == "4321" and card["card"]["brand"] == "visa", "card lastFour and brand")
    listed = instruments.list_network_tokens(ACTIVE_MASTERCARD).message
    check(len(listed["networkTokens"]) >= 4, "network tokens listed on the active Mastercard")
    check(all(token["id"].startswith("NWTK") for token in listed["networkTokens"]), "token ids")
    expect_error(AdyenAPICommunicationError, lambda: instruments.get_payment_instrument("PI0000000000000000000NONE"), "unknown instrument is 404")

    # The activation-data exchange, as the app's SDK plays it
    started = instruments.get_network_token_activation_data(ACTIVE_VISA).message
    check(base64.b64decode(started["sdkInput"]) != b"", "first sdkInput")
    round1 = instruments.create_network_token_provisioning_data(
        {"sdkOutput": answer(started["sdkInput"])}, ACTIVE_VISA, idempotency_key="official-client-round-1").message
    check(round1["sdkInput"] != started["sdkInput"], "round 1 answers a new sdkInput")
    replay = instruments.create_network_token_provisioning_data(
        {"sdkOutput": answer(started["sdkInput"])}, ACTIVE_VISA, idempotency_key="official-client-round-1").message
    check(replay == round1, "the same Idempotency-Key and body replay the first answer")
    stale = expect_error(AdyenAPIUnprocessableEntity, lambda: instruments.create_network_token_provisioning_data(
        {"sdkOutput": answer(started["sdkInput"], b"stale")}, ACTIVE_VISA), "a stale sdkOutput is 422")
    check(stale.status_code == 422, "stale status code")
    round2 = instruments.create_network_token_provisioning_data(
        {"sdkOutput": answer(round1["sdkInput"])}, ACTIVE_VISA, idempotency_key="official-client-round-2").message
    check(round2["sdkInput"] not in (started["sdkInput"], round1["sdkInput"]), "round 2 answers a new sdkInput")
    created = instruments.list_network_tokens(ACTIVE_VISA).message["networkTokens"]
    check(len(created) == 1 and created[0]["status"] == "active", "the completed exchange created an active token")

    # Network tokens
    token = tokens.get_network_token(ACTIVE_TOKEN).message
    check(token["token"]["id"] == ACTIVE_TOKEN and token["token"]["status"] == "active", "get network token")
    updated = tokens.update_network_token({"status": "suspended"}, ACTIVE_TOKEN)
    check(updated.status_code == 202, "PATCH accepted with 202")
    check(tokens.get_network_token(ACTIVE_TOKEN).message["token"]["status"] == "suspended", "suspended token read back")
    tokens.update_network_token({"status": "active"}, ACTIVE_TOKEN)
    expect_error(AdyenAPIUnprocessableEntity, lambda: tokens.update_network_token({"status": "active"}, CLOSED_TOKEN), "closed is final")

    # Credentials
    adyen.client.xapikey = "AQE-not-a-key-of-this-account"
    expect_error(AdyenAPIAuthenticationError, lambda: instruments.get_payment_instrument(ACTIVE_VISA), "a wrong key is 401")

    # Webhooks: the library's HMAC check accepts the simulator's signature and refuses a tampered body
    with open(webhook_path) as handle:
        deliveries = json.load(handle)
    key = deliveries["hmacKey"]
    check(len(deliveries["webhooks"]) > 0, "webhooks to check")
    for index, webhook in enumerate(deliveries["webhooks"]):
        body = webhook["body"].encode("utf-8")
        name = "webhook %d (%s)" % (index + 1, json.loads(body).get("type", "?"))
        check(util.generate_payload_sig(body, key).decode("ascii") == webhook["signature"], name + ": the library signs it identically")
        check(util.is_valid_hmac_payload(webhook["signature"], key, body), name + ": HMAC verifies")
        check(not util.is_valid_hmac_payload(webhook["signature"], key, body + b" "), name + ": a changed body does not verify")

    print("%d checks passed" % checks)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as error:  # any failure, including the library's own errors, fails the check
        print("FAILED after %d checks: %s: %s" % (checks, type(error).__name__, error), file=sys.stderr)
        sys.exit(1)
