import Foundation

/// Walks the configuration JSON, collecting every problem with its JSON path.
struct ConfigurationLoader {
    let registry: ProviderRegistry
    let secrets: SecretResolver
    var problems: [ConfigurationProblem] = []

    init(registry: ProviderRegistry, secrets: SecretResolver) {
        self.registry = registry
        self.secrets = secrets
    }

    static let topLevelKeys: Set<String> = ["providers", "routes", "store", "authorizationRules", "description"]
    static let instanceKeys: Set<String> = [
        "kind", "environment", "baseURL", "credentials", "options", "timeoutSeconds", "maxAttempts", "middlewares",
        "circuitBreaker", "maxConcurrentRequests", "maxWaitingRequests", "propagateTraceContext", "authorizations",
        "description",
    ]
    static let routeKeys: Set<String> = ["when", "use", "description"]
    static let dimensionKeys: [String] = [
        "issuer", "program", "bin", "country", "currency", "tenant", "wallet", "operation",
    ]

    mutating func problem(_ path: String, _ message: String) {
        problems.append(ConfigurationProblem(path: path, message: message))
    }

    mutating func load(_ data: Data) -> GatewayConfiguration? {
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch {
            problem("$", "the document is not valid JSON")
            return nil
        }
        guard let object = root.objectValue else {
            problem("$", "the document must be a JSON object with \"providers\" and \"routes\", not \(root.typeName)")
            return nil
        }
        checkUnknownKeys(object, allowed: Self.topLevelKeys, path: "$")

        var providers: [String: ProviderInstanceConfiguration] = [:]
        var declaredInstances: [String: ProviderKind?] = [:]
        if let providersValue = object["providers"] {
            if let providersObject = providersValue.objectValue {
                if providersObject.isEmpty { problem("providers", "at least one provider instance is required") }
                for name in providersObject.keys.sorted() {
                    let path = "providers.\(name)"
                    if !Self.isValidInstanceName(name) {
                        problem(path, "instance names may use letters, digits, '-' and '_' only")
                    }
                    let (kind, instance) = loadInstance(name: name, value: providersObject[name]!, path: path)
                    declaredInstances[name] = kind
                    if let instance { providers[name] = instance }
                }
            } else {
                problem("providers", "must be an object of named provider instances, not \(providersValue.typeName)")
            }
        } else {
            problem("providers", "is required")
        }

        var routes: [Route] = []
        // Where each loaded route stands in the document: a route that failed to load is left out of `routes`,
        // and problems must still name routes by their place in the JSON.
        var documentIndices: [Int] = []
        if let routesValue = object["routes"] {
            if let routesArray = routesValue.arrayValue {
                for (index, value) in routesArray.enumerated() {
                    if let route = loadRoute(value, path: "routes[\(index)]", instances: declaredInstances) {
                        routes.append(route)
                        documentIndices.append(index)
                    }
                }
                checkOverlaps(routes, documentIndices: documentIndices)
            } else {
                problem("routes", "must be an array of routes, not \(routesValue.typeName)")
            }
        } else {
            problem("routes", "is required (use [] for no routes)")
        }
        var configuration = GatewayConfiguration(providers: providers, routes: routes)
        if let storeValue = object["store"], let store = loadStore(storeValue) { configuration.store = store }
        if let rulesValue = object["authorizationRules"], let rules = loadAuthorizationRules(rulesValue) {
            configuration.authorizationRules = rules
        }
        return configuration
    }

    static func isValidInstanceName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    mutating func checkUnknownKeys(_ object: [String: JSONValue], allowed: Set<String>, path: String) {
        guard !object.keys.allSatisfy(allowed.contains) else { return }  // the usual case: nothing to sort or report
        for key in object.keys.sorted() where !allowed.contains(key) {
            let prefix = path == "$" ? "" : "\(path)."
            problem("\(prefix)\(key)", "unknown key; expected one of \(allowed.sorted().joined(separator: ", "))")
        }
    }

    // MARK: Provider instances

    mutating func loadInstance(
        name: String, value: JSONValue, path: String
    ) -> (ProviderKind?, ProviderInstanceConfiguration?) {
        guard let object = value.objectValue else {
            problem(path, "must be an object with \"kind\" and \"credentials\", not \(value.typeName)")
            return (nil, nil)
        }
        checkUnknownKeys(object, allowed: Self.instanceKeys, path: path)

        guard let kindValue = object["kind"] else {
            problem("\(path).kind", "is required; one of \(registry.kinds.map(\.name).joined(separator: ", "))")
            return (nil, nil)
        }
        guard let kindName = kindValue.stringValue else {
            problem("\(path).kind", "must be a string, not \(kindValue.typeName)")
            return (nil, nil)
        }
        let kind = ProviderKind(kindName)
        guard let factory = registry.factory(for: kind) else {
            problem(
                "\(path).kind",
                "unknown provider kind \"\(kindName)\"; known kinds: \(registry.kinds.map(\.name).joined(separator: ", "))"
            )
            return (nil, nil)
        }

        var failed = false
        // Base URL: the environment's documented one, or the override.
        var environmentName: String?
        var baseURL: URL?
        if let environmentValue = object["environment"] {
            if let text = environmentValue.stringValue {
                if let url = factory.environments[text] {
                    environmentName = text
                    baseURL = url
                } else {
                    problem(
                        "\(path).environment",
                        "unknown environment \"\(text)\" for \(kindName); expected one of \(factory.environments.keys.sorted().joined(separator: ", "))"
                    )
                    failed = true
                }
            } else {
                problem("\(path).environment", "must be a string, not \(environmentValue.typeName)")
                failed = true
            }
        }
        if let baseURLValue = object["baseURL"] {
            if let text = baseURLValue.stringValue, let url = URL(string: text), url.scheme != nil {
                if let reason = EndpointPolicy.problem(with: url) {
                    problem("\(path).baseURL", reason)
                    failed = true
                } else {
                    baseURL = url
                }
            } else {
                problem(
                    "\(path).baseURL",
                    "must be an absolute URL string such as \(factory.environments.values.map(\.absoluteString).sorted().first ?? "https://…")"
                )
                failed = true
            }
        }
        if baseURL == nil && !failed {
            problem(
                path,
                "needs \"environment\" (\(factory.environments.keys.sorted().joined(separator: ", "))) or \"baseURL\"")
            failed = true
        }

        // Credentials.
        var credentials: [String: Secret] = [:]
        let credentialsObject: [String: JSONValue]
        if let credentialsValue = object["credentials"] {
            if let value = credentialsValue.objectValue {
                credentialsObject = value
            } else {
                problem(
                    "\(path).credentials", "must be an object of secret references, not \(credentialsValue.typeName)")
                credentialsObject = [:]
                failed = true
            }
        } else {
            credentialsObject = [:]
            if factory.credentials.contains(where: \.required) {
                problem(
                    "\(path).credentials",
                    "is required; \(kindName) needs \(factory.credentials.filter(\.required).map(\.name).joined(separator: ", "))"
                )
                failed = true
            }
        }
        let knownCredentials = Set(factory.credentials.map(\.name))
        for key in credentialsObject.keys.sorted() where !knownCredentials.contains(key) {
            problem(
                "\(path).credentials.\(key)",
                "unknown credential for \(kindName); expected \(factory.credentials.map(\.name).joined(separator: ", "))"
            )
            failed = true
        }
        for spec in factory.credentials {
            let credentialPath = "\(path).credentials.\(spec.name)"
            guard let value = credentialsObject[spec.name] else {
                if spec.required && object["credentials"]?.objectValue != nil {
                    problem(credentialPath, "is required")
                    failed = true
                }
                continue
            }
            guard let text = value.stringValue else {
                problem(
                    credentialPath,
                    "must be a secret reference string (env:NAME, file:PATH or literal:VALUE), not \(value.typeName)")
                failed = true
                continue
            }
            guard let reference = SecretReference(parsing: text) else {
                problem(credentialPath, "must be a secret reference: env:NAME, file:PATH or literal:VALUE")
                failed = true
                continue
            }
            switch secrets.resolve(reference) {
            case .success(let secret): credentials[spec.name] = secret
            case .failure(let failure):
                problem(credentialPath, failure.message)
                failed = true
            }
        }

        // Options.
        var options: [String: JSONValue] = [:]
        if let optionsValue = object["options"] {
            if let optionsObject = optionsValue.objectValue {
                options = optionsObject
                if !checkOptions(optionsObject, factory: factory, path: "\(path).options") {
                    failed = true
                } else if !decodeOptions(optionsObject, factory: factory, path: path) {
                    failed = true
                }
            } else {
                problem("\(path).options", "must be an object, not \(optionsValue.typeName)")
                failed = true
            }
        } else if factory.options.contains(where: \.required) {
            problem(
                "\(path).options",
                "is required; \(kindName) needs \(factory.options.filter(\.required).map(\.name).joined(separator: ", "))"
            )
            failed = true
        }

        // Timeout and attempts.
        var timeout = factory.defaultTimeout
        if let timeoutValue = object["timeoutSeconds"] {
            if let seconds = timeoutValue.numberValue, seconds.isFinite, seconds >= 0.001, seconds <= 300 {
                timeout = .milliseconds(Int64((seconds * 1000).rounded()))
            } else {
                problem("\(path).timeoutSeconds", "must be a number of seconds from 0.001 (one millisecond) to 300")
                failed = true
            }
        }
        var retry = RetryPolicy.default
        if let attemptsValue = object["maxAttempts"] {
            if let attempts = attemptsValue.intValue, (1...10).contains(attempts) {
                retry.maxAttempts = attempts
            } else {
                problem("\(path).maxAttempts", "must be a whole number from 1 to 10")
                failed = true
            }
        }

        var breaker = CircuitBreakerSettings.default
        if let breakerValue = object["circuitBreaker"] {
            if let loaded = loadBreaker(breakerValue, path: "\(path).circuitBreaker") {
                breaker = loaded
            } else {
                failed = true
            }
        }
        var maxConcurrent = Bulkhead.defaultLimit
        if let limitValue = object["maxConcurrentRequests"] {
            if let limit = limitValue.intValue, (1...Bulkhead.maximumLimit).contains(limit) {
                maxConcurrent = limit
            } else {
                problem("\(path).maxConcurrentRequests", "must be a whole number from 1 to \(Bulkhead.maximumLimit)")
                failed = true
            }
        }
        var maxWaiting = Bulkhead.defaultMaxWaiting
        if let waitingValue = object["maxWaitingRequests"] {
            if let waiting = waitingValue.intValue, (0...Bulkhead.maximumWaiting).contains(waiting) {
                maxWaiting = waiting
            } else {
                problem("\(path).maxWaitingRequests", "must be a whole number from 0 to \(Bulkhead.maximumWaiting)")
                failed = true
            }
        }

        var propagate = false
        if let propagateValue = object["propagateTraceContext"] {
            if let flag = propagateValue.boolValue {
                propagate = flag
            } else {
                problem("\(path).propagateTraceContext", "must be true or false, not \(propagateValue.typeName)")
                failed = true
            }
        }

        var middlewares: [MiddlewareReference] = []
        if let middlewaresValue = object["middlewares"] {
            if let loaded = loadMiddlewares(middlewaresValue, path: "\(path).middlewares") {
                middlewares = loaded
            } else {
                failed = true
            }
        }

        var authorizations = AuthorizationSettings.default
        if let authorizationsValue = object["authorizations"] {
            if let loaded = loadAuthorizationSettings(
                authorizationsValue, factory: factory, path: "\(path).authorizations")
            {
                authorizations = loaded
            } else {
                failed = true
            }
        }

        guard !failed, let baseURL else { return (kind, nil) }
        var instance = ProviderInstanceConfiguration(
            name: name, kind: kind, environment: environmentName, baseURL: baseURL, credentials: credentials,
            options: options, timeout: timeout, retry: retry, middlewares: middlewares, circuitBreaker: breaker,
            maxConcurrentRequests: maxConcurrent, propagateTraceContext: propagate, maxWaitingRequests: maxWaiting
        )
        instance.authorizations = authorizations
        return (kind, instance)
    }

    /// Decodes the options as the adapter's typed options, reporting what its `init(from:)` refuses.
    mutating func decodeOptions(_ options: [String: JSONValue], factory: ProviderFactory, path: String) -> Bool {
        guard let check = factory.checkOptions else { return true }
        do {
            try check(options)
            return true
        } catch let error as CardGatewayError {
            for fieldError in error.fieldErrors { problem("\(path).\(fieldError.field)", fieldError.message) }
            if error.fieldErrors.isEmpty { problem("\(path).options", error.message) }
            return false
        } catch {
            problem("\(path).options", "cannot be read by the \(factory.kind.name) adapter")
            return false
        }
    }

    static let breakerKeys: Set<String> = ["failureThreshold", "coolDownSeconds", "halfOpenProbes", "description"]

    /// `"circuitBreaker"`: `false` turns it off; an object changes any of its settings.
    mutating func loadBreaker(_ value: JSONValue, path: String) -> CircuitBreakerSettings? {
        if value == .bool(false) { return .disabled }
        guard let object = value.objectValue else {
            problem(
                path,
                "must be false (no breaker) or an object with failureThreshold, coolDownSeconds and halfOpenProbes, not \(value.typeName)"
            )
            return nil
        }
        checkUnknownKeys(object, allowed: Self.breakerKeys, path: path)
        var settings = CircuitBreakerSettings.default
        var valid = object.keys.allSatisfy(Self.breakerKeys.contains)
        if let threshold = object["failureThreshold"] {
            if let count = threshold.intValue, (1...1000).contains(count) {
                settings.failureThreshold = count
            } else {
                problem("\(path).failureThreshold", "must be a whole number from 1 to 1000")
                valid = false
            }
        }
        if let coolDown = object["coolDownSeconds"] {
            if let seconds = coolDown.numberValue, seconds.isFinite, seconds >= 0.001, seconds <= 3600 {
                settings.coolDown = .milliseconds(Int64((seconds * 1000).rounded()))
            } else {
                problem("\(path).coolDownSeconds", "must be a number of seconds from 0.001 to 3600")
                valid = false
            }
        }
        if let probes = object["halfOpenProbes"] {
            if let count = probes.intValue, (1...100).contains(count) {
                settings.halfOpenProbes = count
            } else {
                problem("\(path).halfOpenProbes", "must be a whole number from 1 to 100")
                valid = false
            }
        }
        return valid ? settings : nil
    }

    static let middlewareKeys: Set<String> = ["name", "options", "description"]

    /// An instance's `middlewares` array: each entry names a registered middleware and gives its options, which
    /// the middleware's factory checks now (it is built again, the same way, when the gateway is).
    mutating func loadMiddlewares(_ value: JSONValue, path: String) -> [MiddlewareReference]? {
        guard let entries = value.arrayValue else {
            problem(path, "must be an array of {\"name\": …, \"options\": {…}} objects, not \(value.typeName)")
            return nil
        }
        var references: [MiddlewareReference] = []
        var valid = true
        for (index, entry) in entries.enumerated() {
            let entryPath = "\(path)[\(index)]"
            guard let object = entry.objectValue else {
                problem(entryPath, "must be an object with \"name\" and \"options\", not \(entry.typeName)")
                valid = false
                continue
            }
            checkUnknownKeys(object, allowed: Self.middlewareKeys, path: entryPath)
            let known = registry.middlewareFactories.keys.sorted().joined(separator: ", ")
            guard let name = object["name"]?.stringValue else {
                problem("\(entryPath).name", "is required: the name of a registered middleware (\(known))")
                valid = false
                continue
            }
            guard let factory = registry.middlewareFactory(named: name) else {
                problem(
                    "\(entryPath).name",
                    "no middleware is registered as \"\(SafeText.scrub(name, maxLength: 60))\"; known: \(known)")
                valid = false
                continue
            }
            var options: [String: JSONValue] = [:]
            if let optionsValue = object["options"] {
                guard let optionsObject = optionsValue.objectValue else {
                    problem("\(entryPath).options", "must be an object, not \(optionsValue.typeName)")
                    valid = false
                    continue
                }
                options = optionsObject
            }
            do {
                _ = try factory.make(options)
            } catch let error as CardGatewayError {
                let field = error.fieldErrors.first?.field ?? ""
                problem(field.isEmpty ? "\(entryPath).options" : "\(entryPath).options.\(field)", error.message)
                valid = false
                continue
            } catch {
                problem(
                    "\(entryPath).options",
                    "the \(name) middleware cannot be built from these options (\(type(of: error)))")
                valid = false
                continue
            }
            references.append(MiddlewareReference(name: name, options: options))
        }
        return valid ? references : nil
    }

    mutating func checkOptions(_ options: [String: JSONValue], factory: ProviderFactory, path: String) -> Bool {
        var valid = true
        let specs = Dictionary(uniqueKeysWithValues: factory.options.map { ($0.name, $0) })
        for key in options.keys.sorted() {
            guard let spec = specs[key] else {
                let known = factory.options.map(\.name)
                problem(
                    "\(path).\(key)",
                    "unknown option for \(factory.kind.name)"
                        + (known.isEmpty ? "; it takes none" : "; expected one of \(known.joined(separator: ", "))"))
                valid = false
                continue
            }
            let value = options[key]!
            switch spec.type {
            case .string:
                guard let text = value.stringValue, !text.isEmpty else {
                    problem("\(path).\(key)", "must be a non-empty string, not \(value.typeName)")
                    valid = false
                    continue
                }
                if !spec.allowedValues.isEmpty && !spec.allowedValues.contains(text) {
                    problem(
                        "\(path).\(key)",
                        "must be one of \(spec.allowedValues.joined(separator: ", ")), not \"\(text)\"")
                    valid = false
                }
            case .bool:
                if value.boolValue == nil {
                    problem("\(path).\(key)", "must be true or false, not \(value.typeName)")
                    valid = false
                }
            case .integer:
                if value.intValue == nil {
                    problem("\(path).\(key)", "must be a whole number, not \(value.typeName)")
                    valid = false
                }
            }
        }
        for spec in factory.options where spec.required && options[spec.name] == nil {
            problem("\(path).\(spec.name)", "is required")
            valid = false
        }
        return valid
    }

    // MARK: Routes

    mutating func loadRoute(_ value: JSONValue, path: String, instances: [String: ProviderKind?]) -> Route? {
        guard let object = value.objectValue else {
            problem(path, "must be an object with \"when\" and \"use\", not \(value.typeName)")
            return nil
        }
        checkUnknownKeys(object, allowed: Self.routeKeys, path: path)
        var failed = false

        var use: String?
        if let useValue = object["use"] {
            if let name = useValue.stringValue {
                if instances[name] == nil {
                    let known = instances.keys.sorted()
                    problem(
                        "\(path).use",
                        "names no provider instance \"\(name)\""
                            + (known.isEmpty ? "" : "; instances: \(known.joined(separator: ", "))"))
                    failed = true
                }
                use = name
            } else {
                problem("\(path).use", "must be the name of a provider instance, not \(useValue.typeName)")
                failed = true
            }
        } else {
            problem("\(path).use", "is required")
            failed = true
        }

        var conditions = Route.Conditions()
        if let whenValue = object["when"] {
            if let when = whenValue.objectValue {
                // Sorted only when something is to be reported (the usual route has nothing to report).
                if !when.keys.allSatisfy(Self.dimensionKeys.contains) {
                    for key in when.keys.sorted() where !Self.dimensionKeys.contains(key) {
                        problem(
                            "\(path).when.\(key)",
                            "unknown route dimension; expected one of \(Self.dimensionKeys.joined(separator: ", "))")
                        failed = true
                    }
                }
                for key in Self.dimensionKeys {
                    guard let dimensionValue = when[key] else { continue }
                    let dimensionPath = "\(path).when.\(key)"
                    guard let values = stringList(dimensionValue, path: dimensionPath) else {
                        failed = true
                        continue
                    }
                    if !apply(key, values: values, to: &conditions, path: dimensionPath) { failed = true }
                }
            } else {
                problem("\(path).when", "must be an object of conditions, not \(whenValue.typeName)")
                failed = true
            }
        }

        // A route must not send an operation to an instance that cannot serve it.
        if let use, let kindEntry = instances[use], let kind = kindEntry, let factory = registry.factory(for: kind) {
            for operation in (conditions.operations ?? []).sorted(by: { $0.rawValue < $1.rawValue })
            where !factory.descriptor.supports(operation) {
                problem(
                    "\(path).when.operation",
                    "\(use) (\(kind.name)) cannot serve \(operation): it lacks the \(operation.capability) capability")
                failed = true
            }
            if let wallets = conditions.wallets {
                for wallet in wallets.sorted(by: { $0.rawValue < $1.rawValue })
                where factory.descriptor.provisioningFlows[wallet] == nil {
                    problem("\(path).when.wallet", "\(use) (\(kind.name)) does not provision cards to \(wallet)")
                    failed = true
                }
            }
        }
        guard !failed, let use else { return nil }
        return Route(when: conditions, use: use)
    }

    /// A string or a non-empty array of non-empty strings.
    mutating func stringList(_ value: JSONValue, path: String) -> [String]? {
        if let text = value.stringValue {
            guard !text.isEmpty else {
                problem(path, "must not be empty")
                return nil
            }
            return [text]
        }
        guard let array = value.arrayValue else {
            problem(path, "must be a string or an array of strings, not \(value.typeName)")
            return nil
        }
        guard !array.isEmpty else {
            problem(path, "must not be an empty array (leave the dimension out to match anything)")
            return nil
        }
        var strings: [String] = []
        for (index, element) in array.enumerated() {
            guard let text = element.stringValue, !text.isEmpty else {
                problem("\(path)[\(index)]", "must be a non-empty string, not \(element.typeName)")
                return nil
            }
            strings.append(text)
        }
        return strings
    }

    mutating func apply(
        _ dimension: String, values: [String], to conditions: inout Route.Conditions, path: String
    ) -> Bool {
        switch dimension {
        case "issuer": conditions.issuers = Set(values)
        case "program": conditions.programs = Set(values)
        case "tenant": conditions.tenants = Set(values)
        case "country":
            for (index, value) in values.enumerated()
            where !(value.count == 2 && value.allSatisfy { $0.isASCII && $0.isUppercase }) {
                problem(
                    values.count == 1 ? path : "\(path)[\(index)]",
                    "\"\(value)\" is not an ISO 3166-1 alpha-2 country code such as GB")
                return false
            }
            conditions.countries = Set(values)
        case "currency":
            for (index, value) in values.enumerated() where !Money.isCurrencyCode(value) {
                problem(
                    values.count == 1 ? path : "\(path)[\(index)]",
                    "\"\(value)\" is not an ISO 4217 alpha-3 currency code such as EUR")
                return false
            }
            conditions.currencies = Set(values)
        case "wallet":
            var wallets = Set<Wallet>()
            for (index, value) in values.enumerated() {
                guard let wallet = Wallet(parsing: value) else {
                    problem(
                        values.count == 1 ? path : "\(path)[\(index)]",
                        "unknown wallet \"\(value)\"; expected one of \(Wallet.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                    return false
                }
                wallets.insert(wallet)
            }
            conditions.wallets = wallets
        case "operation":
            var operations = Set<GatewayOperation>()
            for (index, value) in values.enumerated() {
                guard let operation = GatewayOperation(rawValue: value) else {
                    problem(
                        values.count == 1 ? path : "\(path)[\(index)]",
                        "unknown operation \"\(value)\"; expected one of \(GatewayOperation.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                    return false
                }
                operations.insert(operation)
            }
            conditions.operations = operations
        case "bin":
            var ranges: [BINRange] = []
            var valid = true
            for (index, value) in values.enumerated() {
                switch BINRange.parse(value) {
                case .success(let range): ranges.append(range)
                case .failure(let failure):
                    problem(values.count == 1 ? path : "\(path)[\(index)]", failure.message)
                    valid = false
                }
            }
            guard valid else { return false }
            conditions.bins = ranges
        default:
            return false
        }
        return true
    }

    /// Overlapping BIN ranges that send the same cards to different instances are an error: a card must never
    /// be routed by accident of rule order to a provider that did not issue it.
    mutating func checkOverlaps(_ routes: [Route], documentIndices: [Int]) {
        struct Entry { var route: Int; var range: BINRange; var low: UInt64; var high: UInt64 }
        var entries: [Entry] = []
        for (index, route) in routes.enumerated() {
            for range in route.when.bins ?? [] {
                let padded = range.padded
                entries.append(Entry(route: index, range: range, low: padded.low, high: padded.high))
            }
        }
        entries.sort { $0.low < $1.low || ($0.low == $1.low && $0.high < $1.high) }
        var reported = Set<String>()
        var found: [(first: Int, second: Int, problem: ConfigurationProblem)] = []
        // Sweep: compare each range with the earlier ones still open.
        var open: [Entry] = []
        for entry in entries {
            open.removeAll { $0.high < entry.low }
            for other in open {
                let a = routes[other.route]
                let b = routes[entry.route]
                guard a.use != b.use, Self.canMatchSameKey(a.when, b.when) else { continue }
                let first = min(other.route, entry.route)
                let second = max(other.route, entry.route)
                let signature = "\(first)-\(second)"
                guard !reported.contains(signature) else { continue }
                reported.insert(signature)
                let firstRange = other.route == first ? other.range : entry.range
                let secondRange = other.route == first ? entry.range : other.range
                found.append(
                    (
                        first, second,
                        ConfigurationProblem(
                            path: "routes[\(documentIndices[second])].when.bin",
                            message:
                                "BIN range \(Self.spoken(secondRange)) overlaps \(Self.spoken(firstRange)) of routes[\(documentIndices[first])], which sends the same cards to \(routes[first].use) instead of \(routes[second].use)"
                        )
                    ))
            }
            open.append(entry)
        }
        for entry in found.sorted(by: { ($0.second, $0.first) < ($1.second, $1.first) }) {
            problems.append(entry.problem)
        }
    }

    /// A range in words ("44000000 to 44009999"): written with a dash, two 8-digit ends look like one card number
    /// to the scrubbing every error message goes through.
    static func spoken(_ range: BINRange) -> String {
        range.low == range.high ? range.low : "\(range.low) to \(range.high)"
    }

    /// True when some key could satisfy both conditions (ignoring BINs).
    static func canMatchSameKey(_ a: Route.Conditions, _ b: Route.Conditions) -> Bool {
        func intersects<T>(_ x: Set<T>?, _ y: Set<T>?) -> Bool {
            guard let x, let y else { return true }
            return !x.isDisjoint(with: y)
        }
        return intersects(a.issuers, b.issuers) && intersects(a.programs, b.programs)
            && intersects(a.countries, b.countries)
            && intersects(a.currencies, b.currencies) && intersects(a.tenants, b.tenants)
            && intersects(a.wallets, b.wallets)
            && intersects(a.operations, b.operations)
    }
}
