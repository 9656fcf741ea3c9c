/// The OpenAPI 3.1 description of every route in ``ProvisioningServer``, written by hand next to the routes.
/// A test checks that each registered route appears here and that nothing here is missing from the router.
enum OpenAPIDocument {
    static let json = #"""
    {
      "openapi": "3.1.0",
      "info": {
        "title": "CardGateway provisioning server",
        "version": "1.0.0",
        "description": "The backend a mobile app talks to: cards, Apple Pay and Google Pay push provisioning, Apple's issuer wallet extension, and stored credentials, across every provider CardGateway serves. JSON with camelCase keys; bytes are standard Base64 with padding. Errors are RFC 7807 problems (application/problem+json) with a `code` from CardGateway where one applies. Every /v1 route needs `Authorization: Bearer <token>`; cards and stored credentials of other users answer 404 exactly like unknown ones."
      },
      "servers": [{ "url": "http://127.0.0.1:8080" }],
      "security": [{ "bearer": [] }],
      "paths": {
        "/health": {
          "get": {
            "operationId": "health",
            "summary": "Liveness",
            "security": [],
            "responses": {
              "200": { "description": "The server runs.", "content": { "application/json": { "schema": {
                "type": "object", "required": ["status"], "properties": { "status": { "const": "ok" } } } } } }
            }
          }
        },
        "/openapi.json": {
          "get": {
            "operationId": "openAPI",
            "summary": "This document",
            "security": [],
            "responses": { "200": { "description": "The OpenAPI document.", "content": { "application/json": {} } } }
          }
        },
        "/metrics": {
          "get": {
            "operationId": "metrics",
            "summary": "The gateway's and the server's metrics in Prometheus' text format (404 when not enabled)",
            "security": [],
            "responses": {
              "200": { "description": "The metrics.", "content": { "text/plain": {} } },
              "404": { "description": "Metrics are not enabled.", "content": { "application/problem+json": {} } }
            }
          }
        },
        "/v1/cards": {
          "get": {
            "operationId": "listCards",
            "summary": "The user's cards, normalised; a card whose provider failed carries `error` instead of details",
            "responses": {
              "200": { "description": "The cards.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CardList" } } } },
              "401": { "$ref": "#/components/responses/Unauthenticated" }
            }
          }
        },
        "/v1/cards/{cardId}": {
          "get": {
            "operationId": "getCard",
            "summary": "One card",
            "parameters": [{ "$ref": "#/components/parameters/cardId" }],
            "responses": {
              "200": { "description": "The card.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Card" } } } },
              "401": { "$ref": "#/components/responses/Unauthenticated" },
              "404": { "$ref": "#/components/responses/NotFound" },
              "default": { "$ref": "#/components/responses/Problem" }
            }
          }
        },
        "/v1/cards/{cardId}/provisioning/offer": {
          "get": {
            "operationId": "provisioningOffer",
            "summary": "Whether the card can be added to the wallet, by which flow, and what the wallet sheet needs",
            "parameters": [
              { "$ref": "#/components/parameters/cardId" },
              { "name": "wallet", "in": "query", "required": true, "schema": { "$ref": "#/components/schemas/Wallet" } }
            ],
            "responses": {
              "200": { "description": "The offer.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Offer" } } } },
              "400": { "$ref": "#/components/responses/Problem" },
              "401": { "$ref": "#/components/responses/Unauthenticated" },
              "404": { "$ref": "#/components/responses/NotFound" },
              "default": { "$ref": "#/components/responses/Problem" }
            }
          }
        },
        "/v1/cards/{cardId}/provisioning/{wallet}": {
          "post": {
            "operationId": "provision",
            "summary": "One provisioning round trip; the body's shape is the offer's flow",
            "description": "encryptedPayload + applePay: ApplePayRequest → ApplePayResponse. encryptedPayload + googlePay: GooglePayRequest → GooglePayResponse. issuerSDKRelay: RelayRequest (omit sdkOutput to start) → RelayResponse; repeat with each sdkOutput. issuerSDKKey: KeyRequest → the provider's ephemeral key JSON, byte for byte. A body of another shape is refused with 400. Optional headers: Idempotency-Key (repeat a logical operation safely), X-SCA-Event-Id and X-SCA-Wallet-Operation-Id (repeat after solving an SCA challenge).",
            "parameters": [
              { "$ref": "#/components/parameters/cardId" },
              { "$ref": "#/components/parameters/walletPath" },
              { "$ref": "#/components/parameters/idempotencyKey" },
              { "$ref": "#/components/parameters/scaEventId" },
              { "$ref": "#/components/parameters/scaWalletOperationId" }
            ],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "oneOf": [
              { "$ref": "#/components/schemas/ApplePayRequest" },
              { "$ref": "#/components/schemas/GooglePayRequest" },
              { "$ref": "#/components/schemas/RelayRequest" },
              { "$ref": "#/components/schemas/KeyRequest" }
            ] } } } },
            "responses": {
              "200": { "description": "The wallet payload, the next SDK input, or the ephemeral key.", "content": { "application/json": { "schema": { "oneOf": [
                { "$ref": "#/components/schemas/ApplePayResponse" },
                { "$ref": "#/components/schemas/GooglePayResponse" },
                { "$ref": "#/components/schemas/RelayResponse" },
                { "type": "object", "description": "The provider's ephemeral key JSON, unchanged." }
              ] } } } },
              "400": { "$ref": "#/components/responses/Problem" },
              "401": { "$ref": "#/components/responses/Unauthenticated" },
              "403": { "$ref": "#/components/responses/SCARequired" },
              "404": { "$ref": "#/components/responses/NotFound" },
              "409": { "$ref": "#/components/responses/Problem" },
              "default": { "$ref": "#/components/responses/Problem" }
            }
          }
        },
        "/v1/cards/{cardId}/provisioning/{wallet}/confirm": {
          "post": {
            "operationId": "confirmProvisioning",
            "summary": "Tell the provider the wallet reported success",
            "parameters": [
              { "$ref": "#/components/parameters/cardId" },
              { "$ref": "#/components/parameters/walletPath" },
              { "$ref": "#/components/parameters/idempotencyKey" }
            ],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ConfirmRequest" } } } },
            "responses": {
              "204": { "description": "Recorded." },
              "400": { "$ref": "#/components/responses/Problem" },
              "401": { "$ref": "#/components/responses/Unauthenticated" },
              "404": { "$ref": "#/components/responses/NotFound" },
              "default": { "$ref": "#/components/responses/Problem" }
            }
          }
        },
        "/v1/wallet-extension": {
          "get": {
            "operationId": "walletExtension",
            "summary": "Everything Apple's issuer wallet extension needs, in one call, served from a per-user cache",
            "description": "For each card and offered wallet: the offer and, for issuer-SDK-relay cards, the relay's first sdkInput. Cached per user (5 minutes by default; 30 seconds when a card failed). refresh=true rebuilds the bundle.",
            "parameters": [{ "name": "refresh", "in": "query", "required": false, "schema": { "type": "boolean", "default": false } }],
            "responses": {
              "200": { "description": "The bundle.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/WalletExtensionBundle" } } } },
              "400": { "$ref": "#/components/responses/Problem" },
              "401": { "$ref": "#/components/responses/Unauthenticated" }
            }
          }
        },
        "/v1/wallet-extension/status": {
          "get": {
            "operationId": "walletExtensionStatus",
            "summary": "The extension's status(), from the cache only (never asks a provider)",
            "responses": {
              "200": { "description": "The status; all false when nothing is cached.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/WalletExtensionStatus" } } } },
              "401": { "$ref": "#/components/responses/Unauthenticated" }
            }
          }
        },
        "/v1/credentials/session": {
          "post": {
            "operationId": "credentialSession",
            "summary": "A token for the provider's SDK: store a card (consent required) or pay with a stored one the user owns",
            "parameters": [{ "$ref": "#/components/parameters/idempotencyKey" }],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SessionRequest" } } } },
            "responses": {
              "200": { "description": "The session.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SessionResponse" } } } },
              "400": { "$ref": "#/components/responses/Problem" },
              "401": { "$ref": "#/components/responses/Unauthenticated" },
              "404": { "$ref": "#/components/responses/NotFound" },
              "501": { "$ref": "#/components/responses/Problem" },
              "default": { "$ref": "#/components/responses/Problem" }
            }
          }
        },
        "/v1/credentials/result": {
          "post": {
            "operationId": "credentialResult",
            "summary": "Verify the SDK's result and record the stored credential as the user's",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ResultRequest" } } } },
            "responses": {
              "200": { "description": "The stored credential.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/StoredCredential" } } } },
              "400": { "$ref": "#/components/responses/Problem" },
              "401": { "$ref": "#/components/responses/Unauthenticated" },
              "402": { "$ref": "#/components/responses/Problem" },
              "409": { "$ref": "#/components/responses/Problem" },
              "default": { "$ref": "#/components/responses/Problem" }
            }
          }
        },
        "/v1/credentials": {
          "get": {
            "operationId": "listCredentials",
            "summary": "The user's stored credentials",
            "responses": {
              "200": { "description": "The credentials.", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/StoredCredentialList" } } } },
              "401": { "$ref": "#/components/responses/Unauthenticated" }
            }
          }
        },
        "/webhooks/{instance}": {
          "post": {
            "operationId": "webhook",
            "summary": "A provider's webhook, verified over the raw body and headers before anything acts on it",
            "security": [],
            "parameters": [{ "name": "instance", "in": "path", "required": true, "description": "The provider instance name from the gateway configuration.", "schema": { "type": "string" } }],
            "requestBody": { "required": true, "content": { "*/*": {} } },
            "responses": {
              "204": { "description": "Authentic; the events were handled." },
              "400": { "$ref": "#/components/responses/Problem" },
              "404": { "$ref": "#/components/responses/NotFound" }
            }
          }
        }
      },
      "components": {
        "securitySchemes": {
          "bearer": { "type": "http", "scheme": "bearer", "description": "The app user's token." }
        },
        "parameters": {
          "cardId": { "name": "cardId", "in": "path", "required": true, "description": "The card's public id.", "schema": { "type": "string" } },
          "walletPath": { "name": "wallet", "in": "path", "required": true, "schema": { "$ref": "#/components/schemas/Wallet" } },
          "idempotencyKey": { "name": "Idempotency-Key", "in": "header", "required": false, "description": "The same key repeats one logical operation without doing it twice.", "schema": { "type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,255}$" } },
          "scaEventId": { "name": "X-SCA-Event-Id", "in": "header", "required": false, "schema": { "type": "string" } },
          "scaWalletOperationId": { "name": "X-SCA-Wallet-Operation-Id", "in": "header", "required": false, "schema": { "type": "string" } }
        },
        "responses": {
          "Problem": { "description": "An RFC 7807 problem.", "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } },
          "Unauthenticated": {
            "description": "Missing or invalid bearer token.",
            "headers": { "WWW-Authenticate": { "schema": { "type": "string" } } },
            "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } }
          },
          "NotFound": { "description": "Unknown, or not the user's.", "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } },
          "SCARequired": { "description": "Strong customer authentication required; the body carries the challenge.", "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } }
        },
        "schemas": {
          "Wallet": { "type": "string", "enum": ["applePay", "googlePay", "samsungPay"] },
          "Flow": { "type": "string", "enum": ["encryptedPayload", "issuerSDKRelay", "issuerSDKKey"] },
          "Network": { "type": "string", "enum": ["visa", "mastercard", "amex", "discover", "unknown"] },
          "Base64": { "type": "string", "contentEncoding": "base64" },
          "Expiry": { "type": "object", "required": ["month", "year"], "properties": { "month": { "type": "integer" }, "year": { "type": "integer" } } },
          "IneligibleReason": { "type": "object", "required": ["code", "message"], "properties": { "code": { "type": "string" }, "message": { "type": "string" } } },
          "ItemError": {
            "type": "object", "required": ["type", "title", "status"],
            "properties": { "type": { "type": "string" }, "title": { "type": "string" }, "status": { "type": "integer" }, "code": { "type": "string" }, "retryable": { "type": "boolean" } }
          },
          "WalletToken": {
            "type": "object", "required": ["id", "status", "providerStatus"],
            "properties": {
              "id": { "type": "string" }, "wallet": { "$ref": "#/components/schemas/Wallet" },
              "status": { "type": "string", "enum": ["requested", "active", "suspended", "deleted", "unknown"] },
              "providerStatus": { "type": "string" }, "deviceAccountReference": { "type": "string" }, "walletId": { "type": "string" },
              "lastFour": { "type": "string" }, "network": { "$ref": "#/components/schemas/Network" }, "created": { "type": "string", "format": "date-time" }
            }
          },
          "Card": {
            "type": "object", "required": ["id", "displayName", "wallets"],
            "properties": {
              "id": { "type": "string" }, "displayName": { "type": "string" }, "provider": { "type": "string" },
              "wallets": { "type": "array", "items": { "$ref": "#/components/schemas/Wallet" } },
              "status": { "type": "string", "enum": ["active", "inactive", "digital", "pending", "locked", "suspended", "cancelled", "expired", "rejected", "unknown"] },
              "providerStatus": { "type": "string" }, "statusReason": { "type": "string" },
              "type": { "type": "string", "enum": ["physical", "virtual", "unknown"] },
              "network": { "$ref": "#/components/schemas/Network" }, "lastFour": { "type": "string" },
              "expiry": { "$ref": "#/components/schemas/Expiry" }, "cardholderName": { "type": "string" },
              "currency": { "type": "string" }, "program": { "type": "string" },
              "walletTokens": { "type": "array", "items": { "$ref": "#/components/schemas/WalletToken" } },
              "availableActions": { "type": "array", "items": { "type": "string" } },
              "error": { "$ref": "#/components/schemas/ItemError" }
            }
          },
          "CardList": { "type": "object", "required": ["cards"], "properties": { "cards": { "type": "array", "items": { "$ref": "#/components/schemas/Card" } } } },
          "Offer": {
            "type": "object", "required": ["cardId", "wallet", "eligible", "existingTokens"],
            "properties": {
              "cardId": { "type": "string" }, "wallet": { "$ref": "#/components/schemas/Wallet" }, "provider": { "type": "string" },
              "eligible": { "type": "boolean" }, "ineligibleReason": { "$ref": "#/components/schemas/IneligibleReason" },
              "flow": { "$ref": "#/components/schemas/Flow" }, "cardholderName": { "type": "string" }, "lastFour": { "type": "string" },
              "network": { "$ref": "#/components/schemas/Network" }, "primaryAccountIdentifier": { "type": "string" },
              "expiry": { "$ref": "#/components/schemas/Expiry" },
              "existingTokens": { "type": "array", "items": { "$ref": "#/components/schemas/WalletToken" } }
            }
          },
          "ApplePayRequest": {
            "type": "object", "additionalProperties": false, "required": ["certificates", "nonce", "nonceSignature"],
            "properties": {
              "certificates": { "type": "array", "minItems": 1, "maxItems": 10, "items": { "$ref": "#/components/schemas/Base64" }, "description": "Leaf first, as PassKit gives them." },
              "nonce": { "$ref": "#/components/schemas/Base64" }, "nonceSignature": { "$ref": "#/components/schemas/Base64" }
            }
          },
          "GooglePayRequest": {
            "type": "object", "additionalProperties": false, "required": ["clientDeviceId", "clientWalletAccountId"],
            "properties": { "clientDeviceId": { "type": "string" }, "clientWalletAccountId": { "type": "string" } }
          },
          "RelayRequest": {
            "type": "object", "additionalProperties": false,
            "properties": { "sdkOutput": { "$ref": "#/components/schemas/Base64", "description": "Omit to start the relay." } }
          },
          "KeyRequest": {
            "type": "object", "additionalProperties": false, "required": ["apiVersion"],
            "properties": { "apiVersion": { "type": "string", "examples": ["2020-08-27"] } }
          },
          "ApplePayResponse": {
            "type": "object", "required": ["activationData", "encryptedPassData", "ephemeralPublicKey"],
            "properties": {
              "activationData": { "$ref": "#/components/schemas/Base64" }, "encryptedPassData": { "$ref": "#/components/schemas/Base64" },
              "ephemeralPublicKey": { "$ref": "#/components/schemas/Base64" }
            }
          },
          "GooglePayResponse": {
            "type": "object", "required": ["opaquePaymentCard"],
            "properties": {
              "opaquePaymentCard": { "$ref": "#/components/schemas/Base64" }, "network": { "$ref": "#/components/schemas/Network" },
              "tokenProvider": { "type": "string" }, "displayName": { "type": "string" }, "lastFour": { "type": "string" }
            }
          },
          "RelayResponse": { "type": "object", "required": ["sdkInput"], "properties": { "sdkInput": { "$ref": "#/components/schemas/Base64" } } },
          "ConfirmRequest": {
            "type": "object", "additionalProperties": false, "required": ["deviceAccountReference"],
            "properties": { "deviceAccountReference": { "type": "string" }, "walletId": { "type": "string" } }
          },
          "WalletExtensionEntry": {
            "type": "object", "required": ["cardId", "displayName", "wallet", "eligible"],
            "properties": {
              "cardId": { "type": "string" }, "displayName": { "type": "string" }, "wallet": { "$ref": "#/components/schemas/Wallet" },
              "provider": { "type": "string" }, "eligible": { "type": "boolean" }, "ineligibleReason": { "$ref": "#/components/schemas/IneligibleReason" },
              "flow": { "$ref": "#/components/schemas/Flow" }, "cardholderName": { "type": "string" }, "lastFour": { "type": "string" },
              "network": { "$ref": "#/components/schemas/Network" }, "primaryAccountIdentifier": { "type": "string" },
              "sdkInput": { "$ref": "#/components/schemas/Base64", "description": "The relay's first input, for issuerSDKRelay cards." },
              "error": { "$ref": "#/components/schemas/ItemError" }
            }
          },
          "WalletExtensionStatus": {
            "type": "object", "required": ["passEntriesAvailable", "remotePassEntriesAvailable", "requiresAuthentication"],
            "properties": {
              "passEntriesAvailable": { "type": "boolean" }, "remotePassEntriesAvailable": { "type": "boolean" },
              "requiresAuthentication": { "type": "boolean" }, "generatedAt": { "type": "string", "format": "date-time" }
            }
          },
          "WalletExtensionBundle": {
            "type": "object", "required": ["entries", "status", "generatedAt", "expiresAt", "cached"],
            "properties": {
              "entries": { "type": "array", "items": { "$ref": "#/components/schemas/WalletExtensionEntry" } },
              "status": { "$ref": "#/components/schemas/WalletExtensionStatus" },
              "generatedAt": { "type": "string", "format": "date-time" }, "expiresAt": { "type": "string", "format": "date-time" },
              "cached": { "type": "boolean" }
            }
          },
          "Amount": {
            "type": "object", "additionalProperties": false, "required": ["minorUnits", "currency"],
            "properties": { "minorUnits": { "type": "integer", "minimum": 1 }, "currency": { "type": "string", "pattern": "^[A-Z]{3}$" } }
          },
          "SessionRequest": {
            "type": "object", "additionalProperties": false, "required": ["intent", "amount"],
            "properties": {
              "intent": { "type": "string", "enum": ["store", "reuse"] },
              "consent": {
                "type": "object", "additionalProperties": false, "required": ["recordedAt", "evidence"], "description": "Required with intent store.",
                "properties": { "recordedAt": { "type": "string", "format": "date-time" }, "evidence": { "type": "string" } }
              },
              "reference": { "type": "string", "description": "Required with intent reuse: a stored credential the user owns." },
              "amount": { "$ref": "#/components/schemas/Amount" },
              "paymentMethod": { "type": "string", "enum": ["card", "applePay", "googlePay"], "default": "card" },
              "orderReference": { "type": "string" }
            }
          },
          "SessionResponse": {
            "type": "object", "required": ["token"],
            "properties": { "token": { "type": "string", "description": "The SDK's JWT." }, "securityCodeLength": { "type": "integer" }, "expiresAt": { "type": "string", "format": "date-time" } }
          },
          "ResultRequest": { "type": "object", "additionalProperties": false, "required": ["jwt"], "properties": { "jwt": { "type": "string" } } },
          "StoredCredential": {
            "type": "object", "required": ["reference", "maskedPAN", "scheme", "created"],
            "properties": {
              "reference": { "type": "string" }, "provider": { "type": "string" }, "maskedPAN": { "type": "string" },
              "brand": { "type": "string" }, "scheme": { "$ref": "#/components/schemas/Network" }, "created": { "type": "string", "format": "date-time" }
            }
          },
          "StoredCredentialList": { "type": "object", "required": ["credentials"], "properties": { "credentials": { "type": "array", "items": { "$ref": "#/components/schemas/StoredCredential" } } } },
          "Problem": {
            "type": "object", "required": ["type", "title", "status", "detail"],
            "properties": {
              "type": { "type": "string", "format": "uri" }, "title": { "type": "string" }, "status": { "type": "integer" }, "detail": { "type": "string" },
              "code": { "type": "string", "description": "The CardGatewayError code, where there is one." },
              "provider": { "type": "string", "description": "The provider instance involved, for gateway errors." },
              "retryable": { "type": "boolean", "description": "Whether repeating the same request later may succeed." },
              "mayHaveReachedProvider": { "type": "boolean", "description": "Whether the request may have reached the provider; when true and retryable is false, check the outcome before repeating." },
              "retryAfter": { "type": "integer", "description": "Seconds to wait, as in Retry-After; only on retryable problems." },
              "providerRequestId": { "type": "string", "description": "The provider's id of its answer, for the provider's support." },
              "errors": { "type": "array", "items": { "type": "object", "required": ["field", "message"], "properties": { "field": { "type": "string" }, "message": { "type": "string" } } } },
              "challenge": {
                "type": "object", "required": ["eventId", "walletOperationId", "mode", "verifications"],
                "properties": {
                  "eventId": { "type": "string" }, "walletOperationId": { "type": "string" }, "mode": { "type": "string" },
                  "verifications": { "type": "array", "items": { "type": "object", "required": ["method"], "properties": { "method": { "type": "string" }, "channel": { "type": "string" }, "target": { "type": "string" } } } },
                  "created": { "type": "string", "format": "date-time" }, "expires": { "type": "string", "format": "date-time" }
                }
              },
              "requestId": { "type": "string" }
            }
          }
        }
      }
    }
    """#
}
