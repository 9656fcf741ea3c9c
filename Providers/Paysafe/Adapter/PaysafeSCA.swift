@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Strong customer authentication on the wire.
///
/// Paysafe signals SCA with **HTTP 401** and `WWW-Authenticate: SCA realm="Prepaid Cards" auth-param1="<base64
/// JSON>"` whose JSON is `{"scaDetails":{eventId, walletOperationId, authenticationMode, availableVerifications,
/// creationTime, expirationTime}}` [C]. That 401 is not an expired token: the adapter must not refresh its
/// token for it. The caller solves the challenge and repeats the operation with `OperationContext.sca`; the
/// adapter then sends `SCA-Authorization: base64({"scaDetails":{"eventId":…,"walletOperationId":…}})` [C].
/// The business API may instead return the SCA event in the response body [C, shape U]: a body whose top level
/// is `scaDetails` is read as a challenge too.
enum PaysafeSCA {
    /// The challenge in an SCA 401, nil when the response carries none. Throws `invalidResponse` when the
    /// header says SCA but its payload cannot be read.
    static func challenge(in response: ProviderResponse) throws -> SCAChallenge? {
        for value in response.headers[values: .wwwAuthenticate] {
            guard let parameters = parseSCAHeader(value) else { continue }
            guard let payload = parameters["auth-param1"], let json = PaysafeMapping.base64(payload),
                let challenge = decodeChallenge(json)
            else {
                throw CardGatewayError.invalidResponse(
                    "Paysafe asked for strong customer authentication but its challenge (WWW-Authenticate auth-param1) could not be read",
                    httpStatus: response.status, requestID: PaysafeErrors.requestID(response.headers)
                )
            }
            return challenge
        }
        return nil
    }

    /// A challenge carried in a response body (`{"scaDetails":{…}}`), nil when the body is anything else.
    static func challenge(inBody body: Data) -> SCAChallenge? {
        guard body.count < 64 * 1024,
            let first = body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }),
            first == UInt8(ascii: "{")
        else { return nil }
        return decodeChallenge(body)
    }

    static func decodeChallenge(_ json: Data) -> SCAChallenge? {
        guard let envelope = try? JSONDecoder().decode(PaysafeWireSCAEnvelope.self, from: json) else { return nil }
        let event = envelope.scaDetails
        return SCAChallenge(
            eventID: event.eventId,
            walletOperationID: event.walletOperationId,
            mode: event.authenticationMode ?? "",
            verifications: (event.availableVerifications ?? []).map {
                SCAChallenge.Verification(method: $0.method, channel: $0.channel, target: $0.target)
            },
            created: event.creationTime.flatMap(PaysafeMapping.date),
            expires: event.expirationTime.flatMap(PaysafeMapping.date)
        )
    }

    /// The parameters of a `WWW-Authenticate` value whose scheme is `SCA` (case-insensitive), lower-cased
    /// names to values with quotes removed; nil for any other scheme.
    static func parseSCAHeader(_ value: String) -> [String: String]? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let scheme = trimmed.prefix { !$0.isWhitespace }
        guard scheme.caseInsensitiveCompare("SCA") == .orderedSame else { return nil }
        var parameters: [String: String] = [:]
        var rest = Substring(trimmed.dropFirst(scheme.count))
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            var parsed = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        parsed.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        closed = true
                        break
                    } else {
                        parsed.append(character)
                    }
                }
                if !closed { return parameters.isEmpty ? [:] : parameters }
            } else {
                parsed = String(rest.prefix { !$0.isWhitespace && $0 != "," })
                rest = rest.dropFirst(parsed.count)
            }
            if !name.isEmpty { parameters[name] = parsed }
        }
        return parameters
    }

    /// `base64({"scaDetails":{"eventId":"…","walletOperationId":"…"}})`.
    static func authorizationHeaderValue(_ authorization: SCAAuthorization) -> String {
        let wire = PaysafeWireSCAAuthorization(
            scaDetails: .init(eventId: authorization.eventID, walletOperationId: authorization.walletOperationID))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(wire)) ?? Data()
        return json.base64EncodedString()
    }

    static func error(_ challenge: SCAChallenge, status: Int, headers: HTTPFields, instance: String) -> CardGatewayError
    {
        CardGatewayError(
            .scaRequired,
            "Paysafe requires strong customer authentication (\(challenge.mode.isEmpty ? "mode not given" : challenge.mode)): solve the challenge, then repeat the call with OperationContext.sca set",
            provider: instance, providerKind: .paysafe, httpStatus: status,
            requestID: PaysafeErrors.requestID(headers),
            isRetryable: false, mayHaveReachedProvider: false, scaChallenge: challenge
        )
    }
}

/// SCA attempts.
extension PaysafeProvider {
    /// Reports the outcome of an outsourced SCA challenge the partner ran itself (`POST /sca/events/{eventId}/attempts`),
    /// so that the operation can be repeated with `OperationContext.sca`.
    ///
    /// - Parameters:
    ///   - method: `PASSWORD`, `PIN`, `PASSKEYS`, `OTP`, `PUSH_NOTIFICATION` or `BIOMETRIC`.
    ///   - channel: `SMS`, `EMAIL`, `AUTHENTICATOR`, `PUSH_NOTIFICATION`, `REDIRECT`, or nil.
    ///   - status: the outcome the partner observed (`VERIFIED` by default).
    ///   - path: the 1.0.0 path (default) or the 2.0.0 `/v2/sca/...` path.
    public func submitSCAAttempt(
        eventID: String, walletOperationID: String, method: String, channel: String?,
        status: PaysafeSCAAttemptStatus = .verified,
        path: PaysafeSCAAttemptPath = .v1, context: OperationContext
    ) async throws -> PaysafeSCAAttemptResult {
        var problems = ValidationProblems()
        problems.require(!PaysafeValidation.isBlank(eventID), "eventID", "is required")
        problems.require(!PaysafeValidation.isBlank(walletOperationID), "walletOperationID", "is required")
        problems.require(!PaysafeValidation.isBlank(method), "method", "is required (for example OTP)")
        if let channel {
            problems.require(!PaysafeValidation.isBlank(channel), "channel", "must not be blank when given")
        }
        try problems.throwIfAny()
        let wire = PaysafeWireSCAAttemptRequest(
            walletOperationId: walletOperationID,
            verification: .init(method: method.uppercased(), channel: channel?.uppercased()),
            status: status == .verified ? nil : status.rawValue
        )
        let response = try await perform(
            PaysafeCall(
                .post, PaysafeAPI.scaAttempts(eventID: eventID, version: path), body: try encode(wire),
                operation: "submit an SCA attempt", sendsSCA: false, signing: .scaAttempt),
            context: context
        )
        let attempt = try calls.decode(PaysafeWireSCAAttempt.self, from: response, what: "SCA attempt")
        return PaysafeSCAAttemptResult(
            id: attempt.id?.value, eventID: attempt.eventId ?? eventID,
            walletOperationID: attempt.walletOperationId ?? walletOperationID,
            status: attempt.status ?? status.rawValue, statusReason: attempt.statusReason,
            allowableAttempts: attempt.allowableAttempts?.value, currentAttempts: attempt.currentAttempts?.value
        )
    }
}

/// The outcome a partner reports for an outsourced SCA attempt. [C]
public enum PaysafeSCAAttemptStatus: String, Sendable, Codable, CaseIterable {
    case verified = "VERIFIED"
    case rejected = "REJECTED"
    case failed = "FAILED"
}

/// Paysafe's answer to an outsourced SCA attempt.
public struct PaysafeSCAAttemptResult: Sendable, Equatable {
    /// The attempt's id.
    public var id: String?
    public var eventID: String
    public var walletOperationID: String
    /// `VERIFIED`, `REJECTED` or `FAILED`, verbatim.
    public var status: String
    public var statusReason: String?
    public var allowableAttempts: Int?
    public var currentAttempts: Int?

    public init(
        id: String?, eventID: String, walletOperationID: String, status: String, statusReason: String? = nil,
        allowableAttempts: Int? = nil, currentAttempts: Int? = nil
    ) {
        self.id = id
        self.eventID = eventID
        self.walletOperationID = walletOperationID
        self.status = status
        self.statusReason = statusReason
        self.allowableAttempts = allowableAttempts
        self.currentAttempts = currentAttempts
    }

    /// True when Paysafe recorded the attempt as verified: the operation can now be repeated with
    /// `OperationContext.sca`.
    public var isVerified: Bool { status.uppercased() == PaysafeSCAAttemptStatus.verified.rawValue }
    /// The status as one of the values Paysafe documents, or nil for a value it added later (kept verbatim in
    /// ``status``, never a decoding error).
    public var knownStatus: PaysafeSCAAttemptStatus? { PaysafeSCAAttemptStatus(rawValue: status.uppercased()) }
}
