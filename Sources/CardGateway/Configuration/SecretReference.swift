import Foundation

/// Where a credential comes from: `env:NAME`, `file:PATH` or `literal:VALUE`.
public enum SecretReference: Sendable, Equatable, CustomStringConvertible {
    case environment(String)
    case file(String)
    case literal(Secret)

    /// Parses a reference; nil when it has none of the three forms.
    public init?(parsing text: String) {
        if text.hasPrefix("env:") {
            let name = String(text.dropFirst(4))
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                return nil
            }
            self = .environment(name)
        } else if text.hasPrefix("file:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { return nil }
            self = .file(path)
        } else if text.hasPrefix("literal:") {
            let value = String(text.dropFirst(8))
            guard !value.isEmpty else { return nil }
            self = .literal(Secret(value))
        } else {
            return nil
        }
    }

    /// Never shows a literal value.
    public var description: String {
        switch self {
        case .environment(let name): return "env:\(name)"
        case .file(let path): return "file:\(path)"
        case .literal: return "literal:<redacted>"
        }
    }
}

/// Resolves secret references: reads environment variables and files. Injectable for tests.
public struct SecretResolver: Sendable {
    public var environment: [String: String]
    /// Relative `file:` paths are taken from here.
    public var baseDirectory: URL?
    public var readFile: @Sendable (URL) throws -> Data

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, baseDirectory: URL? = nil,
        readFile: @escaping @Sendable (URL) throws -> Data = { try Data(contentsOf: $0) }
    ) {
        self.environment = environment
        self.baseDirectory = baseDirectory
        self.readFile = readFile
    }

    /// The secret, or a sentence saying why it could not be had (never containing the value).
    public func resolve(_ reference: SecretReference) -> Result<Secret, ResolutionFailure> {
        switch reference {
        case .literal(let secret):
            return .success(secret)
        case .environment(let name):
            guard let value = environment[name] else {
                return .failure(.init("environment variable \(name) is not set"))
            }
            guard !value.isEmpty else { return .failure(.init("environment variable \(name) is empty")) }
            return .success(Secret(value))
        case .file(let path):
            let url =
                path.hasPrefix("/")
                ? URL(fileURLWithPath: path)
                : (baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
                    .appendingPathComponent(path)
            guard let data = try? readFile(url) else { return .failure(.init("file \(path) cannot be read")) }
            guard let decoded = String(data: data, encoding: .utf8) else {
                return .failure(.init("file \(path) is not UTF-8 text"))
            }
            // Trailing line ends are cut by scalar: "\r\n" is one Character, so String.hasSuffix("\n") misses it.
            var scalars = decoded.unicodeScalars[...]
            while let last = scalars.last, last == "\n" || last == "\r" { scalars = scalars.dropLast() }
            let text = String(String.UnicodeScalarView(scalars))
            guard !text.isEmpty else { return .failure(.init("file \(path) is empty")) }
            return .success(Secret(text))
        }
    }

    public struct ResolutionFailure: Error, Sendable {
        public var message: String
        init(_ message: String) { self.message = message }
    }
}
