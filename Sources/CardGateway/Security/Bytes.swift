// `ByteEncoding` and `ConstantTime` live in the small `CardGatewayBytes` target so that the simulation kit, which does
// not depend on this library, shares the one implementation; users of `CardGateway` see them as before.
@_exported import CardGatewayBytes
