#!/usr/bin/env python3
"""Drives Stripe's official Python library (pip package `stripe`) against a running StripeSimulator.

Usage: official-client-check.py http://127.0.0.1:PORT

Exits 0 when every call behaved as it does against api.stripe.com, 1 on the first failure, 2 on bad usage.
The simulator must be in its documented seed state (a fresh StripeSimulator); the script restores what it changes.
"""
import sys

import stripe

TEST_KEY = "sk_test_CardGatewaySimulator000000000000"
ACTIVE = "ic_1SimActiveEligible000000"
INACTIVE = "ic_1SimInactive00000000000"
CANCELED = "ic_1SimCanceledLost0000000"
SUSPENDED_TOKEN = "intok_1SimGooglePaySuspend0"
SDK_VERSION = "2020-08-27"
ELEMENTS_VERSION = "2020-03-02"

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
    stripe.api_key = TEST_KEY
    stripe.api_base = base.rstrip("/")
    stripe.max_network_retries = 0

    # Cards
    card = stripe.issuing.Card.retrieve(ACTIVE)
    check(isinstance(card, stripe.issuing.Card), "retrieve returns an issuing.Card")
    check(card.id == ACTIVE and card.object == "issuing.card", "card id and object")
    check(card.status == "active" and card.brand == "Visa" and card.last4 == "4242", "card status, brand, last4")
    check(card.exp_month == 8 and card.exp_year == 2030, "card expiry")
    check(card.cardholder.id.startswith("ich_") and card.cardholder.name == "Jenny Rosen", "embedded cardholder")
    check(card.wallets.apple_pay.eligible is True and card.wallets.google_pay.ineligible_reason is None, "wallets")
    check(card.wallets.primary_account_identifier == "V-3020110000000000004242", "primary_account_identifier")
    check(card.livemode is False, "livemode from a test key")

    page = stripe.issuing.Card.list(limit=3)
    check(isinstance(page, stripe.ListObject) and page.object == "list", "list object")
    check(len(page.data) == 3 and page.has_more is True and page.url == "/v1/issuing/cards", "first page")
    check(all(isinstance(item, stripe.issuing.Card) for item in page.data), "list items are cards")
    every = [item.id for item in stripe.issuing.Card.list(limit=3).auto_paging_iter()]
    check(len(every) == 8 and len(set(every)) == 8 and ACTIVE in every, "auto paging walks every card once")
    canceled = stripe.issuing.Card.list(status="canceled")
    check([item.id for item in canceled.data] == [CANCELED], "status filter")
    check(canceled.data[0].cancellation_reason == "lost", "cancellation_reason")

    activated = stripe.issuing.Card.modify(INACTIVE, status="active")
    check(activated.status == "active", "modify activates")
    check(stripe.issuing.Card.modify(INACTIVE, status="inactive").status == "inactive", "modify deactivates")

    # Idempotency (stripe-python adds a key to every POST; here we choose it)
    first = stripe.issuing.Card.modify(INACTIVE, metadata={"check": "1"}, idempotency_key="official-client-check-1")
    again = stripe.issuing.Card.modify(INACTIVE, metadata={"check": "1"}, idempotency_key="official-client-check-1")
    check(first.metadata["check"] == "1" and again.id == first.id, "replayed modify")
    check(again.last_response.headers.get("Idempotent-Replayed") == "true", "Idempotent-Replayed header")
    expect_error(
        stripe.IdempotencyError,
        lambda: stripe.issuing.Card.modify(INACTIVE, metadata={"check": "2"}, idempotency_key="official-client-check-1"),
        "key reused with other parameters",
    )
    stripe.issuing.Card.modify(INACTIVE, metadata={"check": ""})

    # Ephemeral keys
    key = stripe.EphemeralKey.create(issuing_card=ACTIVE, stripe_version=SDK_VERSION)
    check(isinstance(key, stripe.EphemeralKey) and key.object == "ephemeral_key", "ephemeral key object")
    check(key.id.startswith("ephkey_") and key.secret.startswith("ek_test_"), "ephemeral key id and secret")
    check(key.expires - key.created == 3600, "one-hour lifetime")
    check(key.associated_objects[0].id == ACTIVE and key.associated_objects[0].type == "issuing.card", "associated card")
    check(key.last_response.headers.get("Stripe-Version") == SDK_VERSION, "answered in the SDK's version")
    check(key.last_response.headers.get("Request-Id", "").startswith("req_"), "Request-Id header")
    expect_error(ValueError, lambda: stripe.EphemeralKey.create(issuing_card=ACTIVE), "stripe_version is required client-side")
    revoked = stripe.EphemeralKey.delete(key.id)
    check(revoked.id == key.id and revoked.expires <= key.expires, "revoked key")
    expect_error(stripe.InvalidRequestError, lambda: stripe.EphemeralKey.delete(key.id), "revoking twice")

    # Issuing Elements: a key bound to a Stripe.js nonce (docs.stripe.com/issuing/elements)
    nonce = "ephkn_priv_officialclientcheck000001"
    elements = stripe.EphemeralKey.create(issuing_card=ACTIVE, nonce=nonce, stripe_version=ELEMENTS_VERSION)
    check(elements.secret.startswith("ek_test_") and elements.associated_objects[0].id == ACTIVE, "Issuing Elements key")
    check(elements.last_response.headers.get("Stripe-Version") == ELEMENTS_VERSION, "Issuing Elements key version")
    reused = expect_error(
        stripe.InvalidRequestError,
        lambda: stripe.EphemeralKey.create(issuing_card=ACTIVE, nonce=nonce, stripe_version=ELEMENTS_VERSION),
        "a nonce makes one key",
    )
    check(reused.param == "nonce", "the reused nonce is named")

    # Tokens
    tokens = stripe.issuing.Token.list(card=ACTIVE)
    check(isinstance(tokens, stripe.ListObject) and len(tokens.data) == 5, "token list")
    check(all(isinstance(item, stripe.issuing.Token) and item.id.startswith("intok_") for item in tokens.data), "token objects")
    check({item.status for item in tokens.data} == {"active", "suspended", "deleted", "requested"}, "token statuses")
    token = stripe.issuing.Token.retrieve(SUSPENDED_TOKEN)
    check(token.status == "suspended" and token.wallet_provider == "google_pay" and token.card == ACTIVE, "retrieved token")
    check(stripe.issuing.Token.modify(SUSPENDED_TOKEN, status="active").status == "active", "token reactivated")
    check(stripe.issuing.Token.modify(SUSPENDED_TOKEN, status="suspended").status == "suspended", "token suspended")

    # Errors in Stripe's shape, mapped by the library
    missing = expect_error(stripe.InvalidRequestError, lambda: stripe.issuing.Card.retrieve("ic_doesnotexist"), "unknown card")
    check(missing.http_status == 404 and missing.code == "resource_missing", "404 resource_missing")
    check((missing.request_id or "").startswith("req_"), "request id on errors")
    expect_error(stripe.InvalidRequestError, lambda: stripe.issuing.Token.list(), "token list needs card")
    expect_error(
        stripe.AuthenticationError,
        lambda: stripe.issuing.Card.retrieve(ACTIVE, api_key="sk_test_wrong000000000000"),
        "wrong key",
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    try:
        main(sys.argv[1])
    except Exception as error:  # noqa: BLE001 - any failure fails the check
        sys.stderr.write("official client check failed after %d checks: %s: %s\n" % (checks, type(error).__name__, error))
        sys.exit(1)
    print("stripe-python %s: %d checks passed" % (stripe.VERSION, checks))
