import _CryptoExtras

/// A fixed RSA key made for the fuzz harnesses only (it signs nothing outside them): the Bridge webhook
/// harness signs each input with it so that the parser behind the signature check is reached.
enum FuzzKeys {
    static let bridgeWebhookPrivateKeyPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAlzKR2VPmaGaygj3PBjEuDd84hg54uxpjX+nk1bluprqm6ftn
        e5us17LA3/lcBw6laBNfu2PS3mjf7Zn53/pDx/1tmLjwPUZatMJmH1P6TY8UzRs2
        8GupI2elpRDAFLwZfogfjgdoZVdDxZWlBpFyR+cTBQGIHIU/pWIw8dicbEvhVYSV
        BGUJMQHCEfIL8sk1S7EWTIZOKEcVk/5y6nFY+yePif55ACPb1gViim8Z6D9Zuau6
        avLiD0xFZ+zD2HZQI14PQpakDIpg9G4gzF8Bz4BP/D86u4VQQ795nYPwV+VZ0MqJ
        oni6Pl/TUYgxNmMqNG/gWePajwM73ZSYH9lkxwIDAQABAoIBAAFmQooS4/iIaN/1
        DqkvF5MVIk+fVqLVGGNwej6KkQ20TfVMTirBB/ncetfti28c9zAY69/Frp3lEILT
        5K7JaETIPYLB3ireHwQAjh0SJqyLEi8a2fo3BrIOgOAsIxURJVkiW7PlNV4DqkLX
        QgTi6kzLdjUzxFBx+a1NiopWY7d7yFn4Ic/gnJjnAImjIvcB8peJA77t/XWDNOBC
        7CszdIaA+G+QbLK/XSCjjgvW+zbEc9j544G3agOvFiJaDbtDSatxJlzwTse9R64W
        TH8E5/1MI1tIWZ+fD/0Oh02dq3u9NnL76vNt5Mau5MZ2+QrLDS8C6tWqV02tdHOp
        tf2jQcECgYEAxRC3f19MWswo4z35xIFIcQKgXrH3YFSLhCBO8wsLOu9I0tjeRaZ6
        xwMWCUZ2oBwUFUxNE19766g7qSfOjIsqI0alMRE1JTl8oE4r5H0XUt9hlBS5He+6
        5xIY8F0Z0DiqbTva8TWoUhrcmkny8Hq/Rf5gUIg07kG8w0HBsqfWPYcCgYEAxGo5
        ueeSEL9X8jknzW4w4Uh9SLkFi4jcq19WF+ZdTxt1ppUIDEYv4hPZn+ryBUZEx1OR
        NueZPyPwxQeB8wgQPezlhYzjeAnblDj588OONm52lHN8/XLlX8+4NGP6b+csqL44
        quG9f8RbCfOkoG8zQs6dZocUo0iNGyJvpEEzbsECgYAMtEwwIPOqMtk79SXh/jeu
        WW3/TNfW1Px9kxuj3YVm0kBOn36M3POzWsaT6IADSGwfB2E8q34wrhLSj+dn9hzM
        U2SY6jQT50Xai8+Wll3nkNEYm9FnVaol9Wu4KzhbzRtnmWE/BaeJS4QHSlcoG7Gz
        EHgjGPTYm1JRAC89lkZghwKBgQC6EoAZdB3WK88fM7JXVVqNMeUubcmpBME4wJqJ
        Db274aG1bF4xcpSOMovqieM5x/YEd1CMmR9+x4eiwJgFKtBoOfK+cFhWMdCJPOje
        W5ZwTnmb7UStvpk6CUjSqRxpwrF2Mq7wg+bIEbbFWMHPE0mWsrI+nR2aCnNTD26A
        Rxx4gQKBgG+/FMwmjvEi0+ovX0jw8YH5XrUGH/b9r9QJMjBWzQmv+/xJDQmiCRC8
        AJe6mjx4r2prLxyi29Leb4iZdD0aQwQnitkUfaSgk5oU3CzNT7YAHGAnzRcMXsDS
        Ho0cyE2C5W+TAcL6EwdgfDqOHvpLQx0+f4wGyJ36stwrS3OsPBqe
        -----END RSA PRIVATE KEY-----
        """

    static let bridgeWebhookPrivateKey: _RSA.Signing.PrivateKey = {
        do { return try _RSA.Signing.PrivateKey(pemRepresentation: bridgeWebhookPrivateKeyPEM) } catch {
            fatalError("the fuzz harnesses' fixed RSA key does not load: \(error)")
        }
    }()

    static var bridgeWebhookPublicKeyPEM: String { bridgeWebhookPrivateKey.publicKey.pemRepresentation }
}
