import CardGateway
import Foundation

/// Where the CLI reads and writes: the process's standard streams, or (for tests running commands in-process)
/// a ``CLIStreams`` bound to the task.
public struct CLIStreams: Sendable {
    public var stdout: @Sendable (Data) -> Void
    public var stderr: @Sendable (Data) -> Void
    /// All of standard input.
    public var stdin: @Sendable () -> Data

    public init(
        stdout: @escaping @Sendable (Data) -> Void, stderr: @escaping @Sendable (Data) -> Void,
        stdin: @escaping @Sendable () -> Data
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.stdin = stdin
    }

    public static let process = CLIStreams(
        stdout: { FileHandle.standardOutput.write($0) }, stderr: { FileHandle.standardError.write($0) },
        stdin: { FileHandle.standardInput.readDataToEndOfFile() }
    )

    @TaskLocal public static var current = CLIStreams.process

    /// Standard input's first line, without its line ending (the CVV, a PIN, a JWT).
    static func firstInputLine() -> String? {
        let text = String(decoding: current.stdin(), as: UTF8.self)
        guard !text.isEmpty else { return nil }
        let line =
            text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }
}

/// What the CLI writes: JSON results on stdout, JSON errors on stderr, progress on stderr.
enum CLIOutput {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func json<T: Encodable>(_ value: T) throws {
        let data = try encoder.encode(value)
        CLIStreams.current.stdout(data + Data("\n".utf8))
    }

    static func line(_ text: String) {
        CLIStreams.current.stdout(Data((text + "\n").utf8))
    }

    static func progress(_ text: String) {
        CLIStreams.current.stderr(Data((text + "\n").utf8))
    }

    struct ErrorBody: Encodable {
        var code: String
        var message: String
        var provider: String?
        var providerCode: String?
        var httpStatus: Int?
        var requestID: String?
        var retryable: Bool
        /// Whether the request may have reached the provider: when true and `retryable` is false, check the outcome
        /// before repeating it.
        var mayHaveReachedProvider: Bool
        var retryAfterSeconds: Double?
        var fieldErrors: [CardGatewayError.FieldError]?
        var scaChallenge: SCAChallenge?
    }

    /// The error as JSON on stderr: code, message, provider, provider code (never a body or a secret).
    static func error(_ error: CardGatewayError) {
        let body = ErrorBody(
            code: error.code.rawValue, message: error.message, provider: error.provider,
            providerCode: error.providerCode,
            httpStatus: error.httpStatus, requestID: error.requestID, retryable: error.isRetryable,
            mayHaveReachedProvider: error.mayHaveReachedProvider,
            retryAfterSeconds: error.isRetryable ? error.retryAfter.map { Double($0.milliseconds) / 1000 } : nil,
            fieldErrors: error.fieldErrors.isEmpty ? nil : error.fieldErrors, scaChallenge: error.scaChallenge
        )
        let data = (try? encoder.encode(["error": body])) ?? Data("{\"error\":{\"code\":\"\(error.code)\"}}".utf8)
        CLIStreams.current.stderr(data + Data("\n".utf8))
    }
}

/// JSON shapes for results that hold bytes: the bytes as standard Base64, for the app to decode.
struct ProvisioningResponseJSON: Encodable {
    var type: String
    var activationData: String?
    var encryptedPassData: String?
    var ephemeralPublicKey: String?
    var opaquePaymentCard: String?
    var extraProvisionPayload: String?
    var cardType: String?
    var displayName: String?
    var lastFour: String?
    var network: String?
    var tokenProvider: String?
    var sdkInput: String?
    var ephemeralKey: JSONValue?
    var ephemeralKeyID: String?
    var expires: Date?

    init(_ response: ProvisioningResponse) {
        type = response.kind.rawValue
        if let payload = response.applePay {
            activationData = payload.activationData.revealedBytes.base64EncodedString()
            encryptedPassData = payload.encryptedPassData.revealedBytes.base64EncodedString()
            ephemeralPublicKey = payload.ephemeralPublicKey.revealedBytes.base64EncodedString()
            network = payload.network?.rawValue
            tokenProvider = payload.tokenProvider
        } else if let payload = response.googlePay {
            opaquePaymentCard = payload.opaquePaymentCard.revealedBytes.base64EncodedString()
            network = payload.network?.rawValue
            tokenProvider = payload.tokenProvider
            displayName = payload.displayName
            lastFour = payload.lastFour
        } else if let payload = response.samsungPay {
            extraProvisionPayload = payload.extraProvisionPayload.revealedBytes.base64EncodedString()
            cardType = payload.cardType
            network = payload.network?.rawValue
            tokenProvider = payload.tokenProvider
            displayName = payload.displayName
            lastFour = payload.lastFour
        } else if let input = response.issuerSDKInput {
            sdkInput = input.revealedBytes.base64EncodedString()
        } else if let key = response.ephemeralKey {
            ephemeralKey = try? JSONValue.parse(key.rawJSON.revealedBytes)
            ephemeralKeyID = key.id
            expires = key.expires
        }
    }
}

struct ClientSessionJSON: Encodable {
    var token: String
    var issuedAt: Date
    var expires: Date?
    var securityCodeLength: Int?

    init(_ session: ClientSession) {
        token = session.token.revealedValue
        issuedAt = session.issuedAt
        expires = session.expires
        securityCodeLength = session.securityCodeLength
    }
}

struct GatewayEventJSON: Encodable {
    var id: String
    var provider: String?
    var kind: String
    var providerType: String
    var occurredAt: Date?
    var type: String
    var cardStatus: CardStatusChange?
    var walletToken: WalletTokenEvent?
    var credential: StoredCredential?

    init(_ event: GatewayEvent) {
        id = event.id
        provider = event.provider
        kind = event.providerKind.name
        providerType = event.providerType
        occurredAt = event.occurredAt
        type = event.event.name.rawValue
        cardStatus = event.event.cardStatusChanged
        walletToken = event.event.walletToken
        credential = event.event.credentialStored
    }
}
