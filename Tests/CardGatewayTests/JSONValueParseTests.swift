import CardGateway
import Foundation
import Testing

/// `JSONValue.parse` (Foundation's `JSONDecoder`), which the configuration loader and the adapters' loosely read
/// payloads use: what it reads each document as, and what it refuses.
@Suite("Configuration: JSONValue.parse reads JSON as JSONDecoder does", .timeLimit(.minutes(5)))
struct JSONValueParseTests {
    static let documents: [(String, JSONValue)] = [
        (#"{}"#, .object([:])),
        (#"[]"#, .array([])),
        (#"{"a":1}"#, .object(["a": .number(1)])),
        (
            #" { "a" : [ 1 , 2.5 , -3e2 , 0 , -0.0 , 1E+2 , 12345678901234567890 ] } "#,
            .object(["a": .array([1, 2.5, -300, 0, -0.0, 100, 1.2345678901234567e19].map(JSONValue.number))])
        ),
        (
            #"{"s":"plain","e":"q\"b\\s\/n\nt\tr\rb\bf\fu\u00e9\u20AC\ud83d\ude00","empty":""}"#,
            .object(["s": .string("plain"), "e": .string("q\"b\\s/n\nt\tr\rb\u{08}f\u{0C}ué€😀"), "empty": .string("")])
        ),
        (
            #"{"t":true,"f":false,"n":null,"nested":{"deep":[{"x":[[]]}]}}"#,
            .object([
                "t": .bool(true), "f": .bool(false), "n": .null,
                "nested": .object(["deep": .array([.object(["x": .array([.array([])])])])]),
            ])
        ),
        (#""top-level string""#, .string("top-level string")),
        ("42", .number(42)),
        ("true", .bool(true)),
        ("1", .number(1)),
        ("null", .null),
        ("{\"ünïcode key\":\"välue €\"}", .object(["ünïcode key": .string("välue €")])),
        ("\n\t{\"a\":\r\n1}\n", .object(["a": .number(1)])),
        (
            #"{"providers":{"eu":{"kind":"fake","timeoutSeconds":5}},"routes":[{"when":{"bin":"40000000-40001249"},"use":"eu"}]}"#,
            .object([
                "providers": .object(["eu": .object(["kind": .string("fake"), "timeoutSeconds": .number(5)])]),
                "routes": .array([
                    .object(["when": .object(["bin": .string("40000000-40001249")]), "use": .string("eu")])
                ]),
            ])
        ),
    ]

    static let refused = [
        "", " ", "{", "}", "[,]", "[1,,2]", "{\"a\":1,,}", "{\"a\" 1}", "[01]", "[\"\\ud800\"]", "[1e400]", "{a:1}",
        "[-]", "[1.]", "[.5]", "[1e]", "[+1]",
        "[\"\\x\"]", "[\"\\u12\"]", "[\"tab\tinside\"]", "tru", "nul", "[1] [2]", "{\"a\":1}x", "[NaN]", "[Infinity]",
    ]

    @Test("each document reads as the value it spells")
    func values() throws {
        for (text, expected) in Self.documents {
            #expect(try JSONValue.parse(Data(text.utf8)) == expected, "\(text)")
        }
    }

    @Test("what is not JSON is refused")
    func refusals() {
        for text in Self.refused {
            #expect(throws: (any Error).self, "\(text.debugDescription)") { try JSONValue.parse(Data(text.utf8)) }
        }
        let invalidUTF8: [UInt8] = Array("{\"a\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        #expect(throws: (any Error).self) { try JSONValue.parse(Data(invalidUTF8)) }
    }

    /// What `JSONDecoder` accepts beyond RFC 8259, and so what a configuration may hold: the one-pass reader this
    /// replaced left all of these to `JSONDecoder` too, so none is new. Recorded so that a change is seen.
    @Test("JSONDecoder's leniencies: a trailing comma, a byte order mark, and a repeated key (the first one wins)")
    func leniencies() throws {
        #expect(try JSONValue.parse(Data("[1,]".utf8)) == .array([.number(1)]))
        #expect(try JSONValue.parse(Data(#"{"a":1,}"#.utf8)) == .object(["a": .number(1)]))
        #expect(try JSONValue.parse(Data("\u{FEFF}{}".utf8)) == .object([:]))
        #expect(try JSONValue.parse(Data(#"{"a":1,"a":2}"#.utf8)) == .object(["a": .number(1)]))
    }

    @Test("a configuration document that is not JSON is one problem at $")
    func configurationProblem() {
        for text in ["{not json", "[01]", ""] {
            #expect(
                TestFactories.problems(text) == [
                    ConfigurationProblem(path: "$", message: "the document is not valid JSON")
                ], "\(text)")
        }
    }
}
