import CardGateway

/// What a phone would send: the inputs the examples pass to provisioning, standing in for PassKit and Google Pay.
extension SampleInputs {
    /// The wallet inputs of the room whose simulator makes them (``ExampleRoom/sampleWalletInputs``).
    static var wallets: SampleWalletInputs {
        guard let inputs = ExampleRooms.all.lazy.compactMap({ $0.sampleWalletInputs }).first else {
            preconditionFailure("no example room makes sample wallet inputs")
        }
        return inputs
    }

    /// What PassKit hands the app for encrypted-payload provisioning: a certificate chain (leaf first, DER), a
    /// nonce and its signature. The certificates are well-formed DER generated for the simulators.
    public static var applePay: ApplePayProvisioningInput { wallets.applePay }

    /// What Google Pay's push provisioning API hands the app.
    public static var googlePay: GooglePayProvisioningInput { wallets.googlePay }
}
