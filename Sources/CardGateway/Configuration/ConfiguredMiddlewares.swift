import Foundation

extension InstanceMiddlewares {
    /// Builds the middlewares an instance's configuration names, split by placement. Throws a
    /// ``ConfigurationProblem`` whose path is relative to the `middlewares` array (`[0].name`).
    init(configured references: [MiddlewareReference], registry: ProviderRegistry) throws {
        self.init()
        for (index, reference) in references.enumerated() {
            guard let factory = registry.middlewareFactory(named: reference.name) else {
                throw ConfigurationProblem(
                    path: "[\(index)].name",
                    message: "no middleware is registered as \"\(SafeText.scrub(reference.name, maxLength: 60))\"")
            }
            let middleware: any ProviderMiddleware
            do { middleware = try factory.make(reference.options) } catch let error as CardGatewayError {
                throw ConfigurationProblem(path: "[\(index)].options", message: error.message)
            }
            switch factory.placement {
            case .attempt: attempt.append(middleware)
            default: request.append(middleware)
            }
        }
    }
}
