import CardGateway
import CardGatewayExampleKit
import PaysafeSimulator

extension PaysafeExampleRoom {
    /// Paysafe's secure details and PIN frames: the shared secure-link front end.
    public static var revealCard: CardRef? {
        CardRef(id: PaysafeSimulator.Seed.activeCardID, customer: PaysafeSimulator.Seed.euCustomer)
    }
}
