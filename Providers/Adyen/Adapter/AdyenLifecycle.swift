@_spi(AdapterSupport) import CardGateway
import Foundation

/// The normalised card and wallet-token lifecycle on Adyen's Configuration API: payment instruments listed per
/// balance account and moved between `active`, `suspended` and `closed`; network tokens listed per payment
/// instrument and moved between `active`, `suspended` and `closed`. The table is in `Providers/Adyen/README.md`
/// ("Lifecycle").
extension AdyenProvider {
    // MARK: Card listing

    /// Pages through a balance account's payment instruments (`GET /balanceAccounts/{id}/paymentInstruments`),
    /// `CardQuery.customer` being the balance account id. Adyen pages by offset and answers `hasNext`; the page's
    /// `total` is set on the last page only (`offset` + its cards), so ``CardPage/hasMore`` follows `hasNext`.
    ///
    /// One status in `statuses` is sent as Adyen's `status` filter; several, and `types`, are filtered here.
    /// Instruments that are not cards (business accounts), or that a filter applied here drops, are skipped: the
    /// page's `offset` is then moved past the skipped ones, so that ``CardQuery/next(after:)`` asks for the
    /// instrument after the last one Adyen returned and no card is seen twice. A page left empty by skipping is
    /// followed by the next one (at most ``maxSkippedPages`` times) before returning.
    public func listCards(_ query: CardQuery, context: OperationContext) async throws -> CardPage {
        var problems = ValidationProblems()
        ProviderIDs.check(
            query.customer, field: "customer", what: "an Adyen balance account id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        if let limit = query.limit {
            problems.require(
                AdyenAPI.listLimitRange.contains(limit), "limit",
                "Adyen pages hold \(AdyenAPI.listLimitRange.lowerBound) to \(AdyenAPI.listLimitRange.upperBound) payment instruments"
            )
        }
        problems.require(query.offset >= 0, "offset", "the offset must not be negative")
        problems.require(
            query.cursor == nil, "cursor", "Adyen pages payment instruments by offset; a cursor is not accepted")
        var wireStatuses: [String] = []
        for status in query.statuses {
            if let word = AdyenMapping.instrumentStatus(for: status) {
                if !wireStatuses.contains(word) { wireStatuses.append(word) }
            } else {
                problems.add(
                    "statuses",
                    "Adyen payment instruments have no \(status.rawValue) status (use active, inactive, suspended or cancelled)"
                )
            }
        }
        try problems.throwIfAny()
        let balanceAccount = query.customer ?? ""

        var offset = query.offset
        var skipped = 0
        for _ in 0...Self.maxSkippedPages {
            var parameters: [(name: String, value: String)] = []
            if offset > 0 { parameters.append(("offset", String(offset))) }
            if let limit = query.limit { parameters.append(("limit", String(limit))) }
            if wireStatuses.count == 1 { parameters.append(("status", wireStatuses[0])) }
            let response = try await send(
                ProviderRequest(
                    .get, AdyenAPI.balanceAccountPaymentInstruments(balanceAccount), query: parameters,
                    headers: calls.headers(),
                    operation: "list payment instruments"
                ),
                family: .paymentInstrument, context: context
            )
            let page = try calls.decode(
                AdyenWirePaginatedPaymentInstruments.self, from: response, what: "payment instrument list")
            let instruments = page.paymentInstruments ?? []
            let hasNext = page.hasNext ?? false
            var cards: [Card] = []
            var skippedHere = 0
            for instrument in instruments {
                guard instrument.card != nil else {
                    skippedHere += 1
                    continue
                }
                let card = try mapCard(
                    instrument, ref: CardRef(id: instrument.id, customer: instrument.balanceAccountId ?? balanceAccount)
                )
                let statusMatches = wireStatuses.count <= 1 || wireStatuses.contains(instrument.status ?? "")
                let typeMatches = query.types.isEmpty || query.types.contains(card.type)
                if statusMatches && typeMatches {
                    cards.append(card)
                } else {
                    skippedHere += 1
                }
            }
            if cards.isEmpty && hasNext && !instruments.isEmpty {
                // Only skipped instruments on this page: go on to the next one rather than end the listing here.
                offset += instruments.count
                skipped += instruments.count
                continue
            }
            // Skipped instruments are counted into the offset, so that the next page starts after this one's last.
            let pageOffset = query.offset + skipped + skippedHere
            return CardPage(
                cards: cards, total: hasNext ? nil : pageOffset + cards.count,
                limit: hasNext ? cards.count : query.limit,
                offset: pageOffset
            )
        }
        // Every page looked at held only instruments that are skipped; the listing continues from here.
        return CardPage(cards: [], total: nil, limit: query.limit, offset: offset)
    }

    /// How many pages of only skipped instruments one ``listCards(_:context:)`` call reads past.
    static let maxSkippedPages = 5

    // MARK: Card status

    /// Lock → `suspended`, unlock → `active`, cancel → `closed`, by `PATCH /paymentInstruments/{id}` with
    /// `status`, `statusReason` and `statusComment` (sent with an `Idempotency-Key`).
    ///
    /// The instrument is read first. A closed instrument cannot be changed (`invalidCardState`, nothing sent), but
    /// a cancel of one already closed returns it unchanged, so that repeating a cancel whose answer was lost
    /// succeeds. An `inactive` instrument (a physical card not yet activated) cannot be unlocked. Should Adyen
    /// itself refuse the change and the instrument then read as closed, that is `invalidCardState` too.
    ///
    /// Reasons (lock and cancel; unlock sends none): lost, stolen, damaged and suspectedFraud are Adyen's words;
    /// cardholderRequest is `other` with the comment (or "Cardholder request"); other needs a `comment`, as Adyen
    /// requires a `statusComment` with it. No reason sends no `statusReason` (Adyen does not require one).
    public func changeStatus(_ change: CardStatusRequest, context: OperationContext) async throws -> Card {
        var problems = ValidationProblems()
        ProviderIDs.check(
            change.card.id, field: "card.id", what: "an Adyen payment instrument id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        let comment = change.comment?.trimmingCharacters(in: .whitespacesAndNewlines)
        if change.intent != .unlock, change.reason == .other, comment?.isEmpty ?? true {
            problems.add("comment", "Adyen needs a statusComment when the status reason is other")
        }
        try problems.throwIfAny()

        let current = try await paymentInstrument(change.card.id, context: context)
        let card = try mapCard(
            current, ref: CardRef(id: current.id, customer: current.balanceAccountId ?? change.card.customer))
        let target = AdyenMapping.instrumentStatus(for: change.intent)
        switch (current.status, change.intent) {
        case ("closed", .cancel):
            return card
        case ("closed", _):
            throw illegalTransition(
                "payment instrument \(SafeText.scrub(current.id, maxLength: 64)) is closed; a closed card cannot be changed"
            )
        case ("inactive", .unlock):
            throw illegalTransition(
                "payment instrument \(SafeText.scrub(current.id, maxLength: 64)) is inactive (not yet activated); only a suspended card can be unlocked"
            )
        default:
            break
        }
        let wireReason = change.intent == .unlock ? nil : AdyenMapping.statusReason(change.reason)
        let givenComment = (comment?.isEmpty ?? true) ? nil : comment
        let wireComment: String?
        if change.intent == .unlock || change.reason == nil {
            wireComment = nil
        } else if change.reason == .cardholderRequest {
            wireComment = givenComment ?? "Cardholder request"
        } else {
            wireComment = givenComment
        }
        let body = try calls.encode(
            AdyenWireUpdatePaymentInstrumentRequest(
                status: target, statusReason: wireReason, statusComment: wireComment))
        let path = AdyenAPI.paymentInstrument(current.id)
        let commentDigest =
            wireComment.map { String(ByteEncoding.hex(MessageAuthentication.sha256(Data($0.utf8))).prefix(16)) } ?? ""
        let response = try await http.send(
            ProviderRequest(
                .patch, path, headers: calls.headers(json: true), body: body,
                repeatability: .idempotent(
                    header: AdyenAPI.idempotencyKeyHeader,
                    scope: "PATCH \(path) \(target) \(wireReason ?? "") \(commentDigest)"),
                operation: "update payment instrument status"
            ),
            context: context
        )
        guard response.isSuccess else {
            let error = self.error(for: response, family: .paymentInstrument)
            if (400..<500).contains(response.status), response.status != 429,
                let now = try? await paymentInstrument(current.id, context: context), now.status == "closed"
            {
                throw illegalTransition(
                    "payment instrument \(SafeText.scrub(current.id, maxLength: 64)) is closed; Adyen refused the change",
                    from: error
                )
            }
            throw error
        }
        let updated = try calls.decode(
            AdyenWirePaymentInstrument.self, from: response, what: "updated payment instrument")
        return try mapCard(
            updated, ref: CardRef(id: updated.id, customer: updated.balanceAccountId ?? card.ref.customer))
    }

    // MARK: Wallet tokens

    /// The card's network tokens in every status (`GET /paymentInstruments/{id}/networkTokens`; Adyen answers
    /// them all at once, unpaged).
    public func walletTokens(of card: CardRef, context: OperationContext) async throws -> [WalletToken] {
        try await networkTokens(for: card, context: context)
    }

    /// Suspend → `suspended`, resume → `active`, delete → `closed`, by `PATCH /networkTokens/{id}` (answered 202,
    /// sent with an `Idempotency-Key`). Adyen's token update has no reason: `reason` is not sent.
    ///
    /// The token is read first (`GET /networkTokens/{id}`): one whose `paymentInstrumentId` is not `change.card`
    /// is `notFound`; a closed one cannot be changed (`invalidCardState`, nothing sent), except that deleting a
    /// token already closed returns it unchanged. Should Adyen itself refuse and the token then read as closed,
    /// that is `invalidCardState` too. The answer is the token read first, with its new status.
    public func changeWalletToken(_ change: WalletTokenRequest, context: OperationContext) async throws -> WalletToken {
        var problems = ValidationProblems()
        ProviderIDs.check(
            change.card.id, field: "card.id", what: "an Adyen payment instrument id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        ProviderIDs.check(
            change.token, field: "token", what: "an Adyen network token id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        try problems.throwIfAny()

        let (current, owner) = try await networkTokenWithOwner(id: change.token, context: context)
        guard owner == change.card.id else {
            throw CardGatewayError(
                .notFound,
                "network token \(SafeText.scrub(change.token, maxLength: 64)) does not belong to payment instrument \(SafeText.scrub(change.card.id, maxLength: 64))",
                provider: http.instance, providerKind: .adyen
            )
        }
        if current.providerStatus == "closed" {
            if change.intent == .delete { return current }
            throw illegalTransition(
                "network token \(SafeText.scrub(change.token, maxLength: 64)) is closed; a closed token cannot be changed"
            )
        }
        let target = AdyenMapping.networkTokenStatus(for: change.intent)
        let body = try calls.encode(AdyenWireUpdateNetworkTokenRequest(status: target.rawValue))
        let path = AdyenAPI.networkToken(change.token)
        let response = try await http.send(
            ProviderRequest(
                .patch, path, headers: calls.headers(json: true), body: body,
                repeatability: .idempotent(
                    header: AdyenAPI.idempotencyKeyHeader, scope: "PATCH \(path) \(target.rawValue)"),
                operation: "update network token status"
            ),
            context: context
        )
        guard response.isSuccess else {
            let error = self.error(for: response, family: .networkTokens)
            if (400..<500).contains(response.status), response.status != 429,
                let now = try? await networkTokenWithOwner(id: change.token, context: context),
                now.token.providerStatus == "closed"
            {
                throw illegalTransition(
                    "network token \(SafeText.scrub(change.token, maxLength: 64)) is closed; Adyen refused the change",
                    from: error)
            }
            throw error
        }
        // Adyen answers 202 with no content; a body that is there must at least be JSON, or the answer is not Adyen's.
        if !response.body.isEmpty, (try? JSONSerialization.jsonObject(with: response.body)) == nil {
            throw calls.invalidResponse("Adyen's answer to the network token update could not be read", response)
        }
        var updated = current
        updated.providerStatus = target.rawValue
        updated.status = AdyenMapping.tokenStatus(target.rawValue)
        return updated
    }

    /// `GET /networkTokens/{id}` with the payment instrument it names.
    private func networkTokenWithOwner(
        id: String, context: OperationContext
    ) async throws -> (token: WalletToken, owner: String?) {
        let response = try await send(
            ProviderRequest(.get, AdyenAPI.networkToken(id), headers: calls.headers(), operation: "get network token"),
            family: .networkTokens, context: context
        )
        let wire = try calls.decode(AdyenWireGetNetworkTokenResponse.self, from: response, what: "network token").token
        guard let token = AdyenMapping.walletToken(wire) else {
            throw calls.invalidResponse("Adyen's network token has no id", response)
        }
        return (token, wire.paymentInstrumentId)
    }

    private func illegalTransition(_ message: String, from providerError: CardGatewayError? = nil) -> CardGatewayError {
        CardGatewayError(
            .invalidCardState, message, provider: http.instance, providerKind: .adyen,
            providerCode: providerError?.providerCode,
            httpStatus: providerError?.httpStatus, requestID: providerError?.requestID
        )
    }
}
