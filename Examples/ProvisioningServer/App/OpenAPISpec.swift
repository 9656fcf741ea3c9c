import Foundation
import OpenAPIRuntime
import Yams

/// The OpenAPI document the server is generated from: `openapi.yaml`, shipped as a resource of this module so that
/// `GET /openapi.yaml` serves the very file the build plugin read, and its JSON form for `GET /openapi.json`.
///
/// The route table (``ProvisioningServer/endpoints``), the operations that need a bearer token and the answers for
/// a method a path does not serve (405 with `Allow`) are all read from the same document, so none of them can drift
/// from the generated routing.
struct OpenAPISpec: Sendable {
    /// The bytes of `openapi.yaml`.
    let yaml: Data
    /// The document as a JSON object (what `GET /openapi.json` encodes).
    let document: OpenAPIObjectContainer
    /// `document` encoded as the server encodes every JSON body (sorted keys, slashes unescaped).
    let json: Data
    /// Every operation, in the document's order of paths.
    let operations: [Operation]

    /// One operation of the document.
    struct Operation: Sendable, Hashable {
        var id: String
        /// Upper case: `GET`, `POST`.
        var method: String
        /// The path template (`/v1/cards/{cardId}`).
        var path: String
        /// False when the operation says `security: []`.
        var requiresAuthentication: Bool
        /// Whether the operation takes an `application/json` body.
        var hasJSONBody: Bool = false
    }

    /// The document bundled with this module.
    static let bundled: OpenAPISpec = {
        do {
            guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
                throw SpecError(message: "openapi.yaml is not among the module's resources")
            }
            return try OpenAPISpec(yaml: Data(contentsOf: url))
        } catch {
            // The file is compiled into the server by the build plugin and copied as a resource by the same build;
            // a document that does not load here could not have been generated from.
            preconditionFailure("the bundled openapi.yaml does not load: \(error)")
        }
    }()

    struct SpecError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    init(yaml: Data) throws {
        self.yaml = yaml
        let node = try Yams.compose(yaml: String(decoding: yaml, as: UTF8.self))
        guard let node, case .some(let root as [String: (any Sendable)?]) = try Self.value(of: node) else {
            throw SpecError(message: "the document is not a YAML mapping")
        }
        document = try OpenAPIObjectContainer(unvalidatedValue: root)
        json = try JSONOutput.encoder().encode(document)
        operations = try Self.operations(in: root)
    }

    /// A YAML node as the JSON value it stands for, by its resolved tag (so a quoted `'4242'` stays a string).
    static func value(of node: Node) throws -> (any Sendable)? {
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return nil
            case .bool: return node.bool
            case .int: return node.int
            case .float: return node.float
            default: return scalar.string
            }
        case .mapping(let mapping):
            var object: [String: (any Sendable)?] = [:]
            for (key, value) in mapping {
                guard let name = key.string else { throw SpecError(message: "a mapping key is not a string") }
                object[name] = try Self.value(of: value)
            }
            return object
        case .sequence(let sequence):
            return try sequence.map { try Self.value(of: $0) }
        case .alias:
            throw SpecError(message: "the document uses a YAML alias; write the value out")
        }
    }

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    static func operations(in root: [String: (any Sendable)?]) throws -> [Operation] {
        guard let paths = root["paths"] as? [String: (any Sendable)?] else {
            throw SpecError(message: "the document has no paths")
        }
        let defaultSecurity = (root["security"] as? [(any Sendable)?]).map { !$0.isEmpty } ?? false
        var operations: [Operation] = []
        for path in paths.keys.sorted() {
            guard let item = paths[path] as? [String: (any Sendable)?] else { continue }
            for method in methods {
                guard let operation = item[method] as? [String: (any Sendable)?] else { continue }
                guard let id = operation["operationId"] as? String else {
                    throw SpecError(message: "\(method) \(path) has no operationId")
                }
                let security = (operation["security"] as? [(any Sendable)?]).map { !$0.isEmpty } ?? defaultSecurity
                let content =
                    (operation["requestBody"] as? [String: (any Sendable)?])?["content"] as? [String: (any Sendable)?]
                operations.append(
                    Operation(
                        id: id, method: method.uppercased(), path: path, requiresAuthentication: security,
                        hasJSONBody: content?.keys.contains("application/json") ?? false
                    ))
            }
        }
        return operations
    }

    /// The operation with this id.
    func operation(id: String) -> Operation? { operations.first { $0.id == id } }

    /// The methods the server answers for `path`, when `path` is one the document describes; nil otherwise. Where
    /// several templates match (`…/provisioning/offer` and `…/provisioning/{wallet}`), the one with the most literal
    /// segments from the left wins, as in the router.
    func allowedMethods(forPath path: String) -> [String]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var best: (score: [Bool], template: String)?
        for template in Set(operations.map(\.path)) {
            let parts = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard parts.count == segments.count else { continue }
            var score: [Bool] = []
            var matches = true
            for (part, segment) in zip(parts, segments) {
                if part.hasPrefix("{") && part.hasSuffix("}") {
                    if segment.isEmpty { matches = false; break }
                    score.append(false)
                } else if part == segment {
                    score.append(true)
                } else {
                    matches = false
                    break
                }
            }
            guard matches else { continue }
            if let current = best, !Self.isMoreLiteral(score, than: current.score) { continue }
            best = (score, template)
        }
        guard let template = best?.template else { return nil }
        return operations.filter { $0.path == template }.map(\.method)
    }

    /// True when `lhs` has a literal segment where `rhs` first differs.
    static func isMoreLiteral(_ lhs: [Bool], than rhs: [Bool]) -> Bool {
        for (left, right) in zip(lhs, rhs) where left != right { return left }
        return false
    }
}
