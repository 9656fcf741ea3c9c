import ArgumentParser
import ProvisioningServerApp

/// The card details and PIN routes' flags (docs/SERVER.md, "Card details and PIN").
struct CardRevealOptions: ParsableArguments {
    @Option(
        name: .customLong("reveal-rate-limit-per-user"),
        help:
            "Card details and PIN calls (offers and sessions) a minute per user, on top of --rate-limit-per-user (0: off)."
    )
    var rateLimitPerUser: Int = CardRevealPolicy().rateLimitPerUser
    @Option(
        name: .customLong("reveal-max-auth-age"),
        help:
            "Seconds: card details and PIN need a sign-in this recent (the bearer JWT's auth_time; with --jwks-url only). Default: no requirement."
    )
    var maxAuthAge: Int?

    func validate() throws {
        if rateLimitPerUser < 0 { throw ValidationError("--reveal-rate-limit-per-user must be 0 or more") }
        if let maxAuthAge, maxAuthAge < 1 { throw ValidationError("--reveal-max-auth-age must be at least 1 second") }
    }

    /// Refuses a sign-in requirement the authentication cannot meet: the directory's tokens carry no sign-in time.
    func validate(jwt: Bool) throws {
        if maxAuthAge != nil, !jwt {
            throw ValidationError(
                "--reveal-max-auth-age needs --jwks-url (the directory's tokens carry no sign-in time)")
        }
    }

    var policy: CardRevealPolicy {
        CardRevealPolicy(rateLimitPerUser: rateLimitPerUser, maxAuthenticationAge: maxAuthAge.map { .seconds($0) })
    }
}
