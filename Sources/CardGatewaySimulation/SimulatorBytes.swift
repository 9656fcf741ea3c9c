// Simulators use the same `ByteEncoding` and `ConstantTime` as the core (from `CardGatewayBytes`, which depends on
// nothing), without the simulation kit depending on the core library: a simulator still checks an adapter on its own.
@_exported import CardGatewayBytes
