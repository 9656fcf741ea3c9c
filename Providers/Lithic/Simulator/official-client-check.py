#!/usr/bin/env python3
"""Drives Lithic's official Python library (pip package `lithic`) against a running LithicSimulator.

Usage: official-client-check.py http://127.0.0.1:PORT

Exits 0 when every call behaved as the library expects of api.lithic.com, 1 on the first failure, 2 on bad usage.
The simulator must be in its documented seed state (a fresh LithicSimulator). Every operation the adapter uses is
driven: card retrieve, list (auto paging), create (with an Idempotency-Key, replayed), update of the state (PAUSED,
OPEN, CLOSED), tokenizations list, retrieve, pause, unpause and deactivate, provision for the three wallets, and the
embed session (the library has no method for POST /v1/cards/{card_token}/embed, so its generic `post` sends it).
"""
import sys
import uuid

import lithic

API_KEY = "sim-lithic-api-key-00000000000000000001"
ACCOUNT = "a0000000-0000-4000-8000-000000000001"
EMPTY_ACCOUNT = "a0000000-0000-4000-8000-000000000002"
PROGRAM = "b0000000-0000-4000-8000-000000000001"
ACTIVE = "c0000000-0000-4000-8000-000000000001"
LOCKABLE = "c0000000-0000-4000-8000-000000000002"
CANCELLABLE = "c0000000-0000-4000-8000-000000000003"
PAUSED = "c0000000-0000-4000-8000-000000000004"
CLOSED = "c0000000-0000-4000-8000-000000000006"
WALLET = "c0000000-0000-4000-8000-000000000007"
MISSING = "c0000000-0000-4000-8000-000000009999"
ACTIVE_TOKEN = "70000000-0000-4000-8000-000000000001"
DELETABLE_TOKEN = "70000000-0000-4000-8000-000000000002"
DEACTIVATED_TOKEN = "70000000-0000-4000-8000-000000000003"

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


def main(base):
    client = lithic.Lithic(api_key=API_KEY, base_url=base.rstrip("/"), max_retries=0)

    # Cards
    card = client.cards.retrieve(ACTIVE)
    check(card.token == ACTIVE and card.state == "OPEN" and card.last_four == "4242", "retrieve: token, state, last four")
    check(card.exp_month == "08" and card.exp_year == "2030" and card.type == "VIRTUAL", "retrieve: expiry and type")
    check(card.account_token == ACCOUNT and card.card_program_token == PROGRAM, "retrieve: account and program")
    check(card.pan is None and card.cvv is None, "retrieve: no PAN or CVV for a key without PCI access")
    error = expect_error(lithic.NotFoundError, lambda: client.cards.retrieve(MISSING), "a missing card is 404")
    check(error.body.get("debugging_request_id"), "the error body has debugging_request_id")

    page = client.cards.list(account_token=ACCOUNT, page_size=3)
    check(len(page.data) == 3 and page.has_more is True, "first page of three")
    every = [item.token for item in client.cards.list(account_token=ACCOUNT, page_size=2)]
    check(len(every) == 7 and len(set(every)) == 7 and ACTIVE in every, "auto paging walks every card once")
    paused = client.cards.list(account_token=ACCOUNT, state="PAUSED")
    check([item.token for item in paused.data] == [PAUSED], "state filter")

    key = str(uuid.uuid4())
    first = client.cards.create(
        type="VIRTUAL", account_token=EMPTY_ACCOUNT, card_program_token=PROGRAM, memo="official client",
        extra_headers={"Idempotency-Key": key})
    again = client.cards.create(
        type="VIRTUAL", account_token=EMPTY_ACCOUNT, card_program_token=PROGRAM, memo="official client",
        extra_headers={"Idempotency-Key": key})
    check(first.state == "OPEN" and first.type == "VIRTUAL" and first.memo == "official client", "create")
    check(again.token == first.token, "a repeated Idempotency-Key replays the card")
    expect_error(
        lithic.UnprocessableEntityError,
        lambda: client.cards.create(type="VIRTUAL", memo="other", extra_headers={"Idempotency-Key": key}),
        "a key reused with another body")

    check(client.cards.update(LOCKABLE, state="PAUSED", substatus="SUSPICIOUS_ACTIVITY").state == "PAUSED", "pause")
    check(client.cards.update(LOCKABLE, state="OPEN").state == "OPEN", "reopen")
    closed = client.cards.update(CANCELLABLE, state="CLOSED", substatus="LOST", comment="official client")
    check(closed.state == "CLOSED" and closed.substatus == "LOST", "close")
    expect_error(lithic.BadRequestError, lambda: client.cards.update(CLOSED, state="OPEN"), "a closed card stays closed")

    # Tokenizations
    tokens = [item.token for item in client.tokenizations.list(card_token=WALLET)]
    check(tokens[:3] == [ACTIVE_TOKEN, DELETABLE_TOKEN, DEACTIVATED_TOKEN] and len(tokens) == 4, "tokenizations")
    token = client.tokenizations.retrieve(ACTIVE_TOKEN)
    check(token.status == "ACTIVE" and token.token_requestor_name == "APPLE_PAY", "retrieve a tokenization")
    client.tokenizations.pause(ACTIVE_TOKEN)
    check(client.tokenizations.retrieve(ACTIVE_TOKEN).status == "PAUSED", "pause a tokenization")
    expect_error(lithic.ConflictError, lambda: client.tokenizations.pause(ACTIVE_TOKEN), "pause a paused one is 409")
    client.tokenizations.unpause(ACTIVE_TOKEN)
    check(client.tokenizations.retrieve(ACTIVE_TOKEN).status == "ACTIVE", "unpause a tokenization")
    client.tokenizations.deactivate(DELETABLE_TOKEN)
    check(client.tokenizations.retrieve(DELETABLE_TOKEN).status == "DEACTIVATED", "deactivate a tokenization")

    # Provisioning
    apple = client.cards.provision(
        ACTIVE, digital_wallet="APPLE_PAY", certificate="Y2VydGlmaWNhdGU=", nonce="bm9uY2U=",
        nonce_signature="c2lnbmF0dXJl")
    payload = apple.provisioning_payload
    check(payload.activation_data and payload.encrypted_data and payload.ephemeral_public_key, "Apple Pay payload")
    google = client.cards.provision(
        ACTIVE, digital_wallet="GOOGLE_PAY", client_device_id="device-1", client_wallet_account_id="account-1")
    check(isinstance(google.provisioning_payload, str) and google.provisioning_payload, "Google Pay payload")
    samsung = client.cards.provision(
        ACTIVE, digital_wallet="SAMSUNG_PAY", client_device_id="device-1", client_wallet_account_id="account-1")
    check(isinstance(samsung.provisioning_payload, str), "Samsung Pay payload")
    expect_error(
        lithic.UnprocessableEntityError,
        lambda: client.cards.provision(PAUSED, digital_wallet="GOOGLE_PAY", client_device_id="d", client_wallet_account_id="w"),
        "a paused card is not provisioned")

    # Embed sessions
    session = client.post(
        "/v1/cards/%s/embed" % ACTIVE, body={"type": "CARD_EMBED", "target_origin": "https://cardholder.example"},
        cast_to=object)
    check(isinstance(session, dict) and session.get("session"), "an embed session")
    expect_error(
        lithic.BadRequestError,
        lambda: client.post(
            "/v1/cards/%s/embed" % ACTIVE, body={"type": "CARD_EMBED", "target_origin": "http://x.example/path"},
            cast_to=object),
        "a target_origin that is not an https origin")

    # Authentication
    other = lithic.Lithic(api_key="another-key", base_url=base.rstrip("/"), max_retries=0)
    expect_error(lithic.AuthenticationError, lambda: other.cards.retrieve(ACTIVE), "another key is 401")

    print("%d checks passed" % checks)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    try:
        main(sys.argv[1])
    except Exception as error:  # noqa: BLE001 - report any failure with the check that failed
        print("FAILED after %d checks: %s: %s" % (checks, type(error).__name__, error))
        sys.exit(1)
