import Foundation

/// ISO 3166-1 country codes, for providers that write a merchant's country in alpha-3 (Adyen's `nameLocation.country`,
/// Marqeta's `card_acceptor.country_code`) where the normalised model has alpha-2. One table for every adapter: the
/// 249 current entries of ISO 3166-1, taken from Debian's iso-codes 4.18 (`iso_3166-1.json`).
@_spi(AdapterSupport) public enum CountryCodes: Sendable {
    /// `alpha2alpha3` pairs, sorted by alpha-2.
    static let pairs = """
        ADAND,AEARE,AFAFG,AGATG,AIAIA,ALALB,AMARM,AOAGO,AQATA,ARARG,ASASM,ATAUT,AUAUS,AWABW,AXALA,AZAZE,BABIH,
        BBBRB,BDBGD,BEBEL,BFBFA,BGBGR,BHBHR,BIBDI,BJBEN,BLBLM,BMBMU,BNBRN,BOBOL,BQBES,BRBRA,BSBHS,BTBTN,BVBVT,
        BWBWA,BYBLR,BZBLZ,CACAN,CCCCK,CDCOD,CFCAF,CGCOG,CHCHE,CICIV,CKCOK,CLCHL,CMCMR,CNCHN,COCOL,CRCRI,CUCUB,
        CVCPV,CWCUW,CXCXR,CYCYP,CZCZE,DEDEU,DJDJI,DKDNK,DMDMA,DODOM,DZDZA,ECECU,EEEST,EGEGY,EHESH,ERERI,ESESP,
        ETETH,FIFIN,FJFJI,FKFLK,FMFSM,FOFRO,FRFRA,GAGAB,GBGBR,GDGRD,GEGEO,GFGUF,GGGGY,GHGHA,GIGIB,GLGRL,GMGMB,
        GNGIN,GPGLP,GQGNQ,GRGRC,GSSGS,GTGTM,GUGUM,GWGNB,GYGUY,HKHKG,HMHMD,HNHND,HRHRV,HTHTI,HUHUN,IDIDN,IEIRL,
        ILISR,IMIMN,ININD,IOIOT,IQIRQ,IRIRN,ISISL,ITITA,JEJEY,JMJAM,JOJOR,JPJPN,KEKEN,KGKGZ,KHKHM,KIKIR,KMCOM,
        KNKNA,KPPRK,KRKOR,KWKWT,KYCYM,KZKAZ,LALAO,LBLBN,LCLCA,LILIE,LKLKA,LRLBR,LSLSO,LTLTU,LULUX,LVLVA,LYLBY,
        MAMAR,MCMCO,MDMDA,MEMNE,MFMAF,MGMDG,MHMHL,MKMKD,MLMLI,MMMMR,MNMNG,MOMAC,MPMNP,MQMTQ,MRMRT,MSMSR,MTMLT,
        MUMUS,MVMDV,MWMWI,MXMEX,MYMYS,MZMOZ,NANAM,NCNCL,NENER,NFNFK,NGNGA,NINIC,NLNLD,NONOR,NPNPL,NRNRU,NUNIU,
        NZNZL,OMOMN,PAPAN,PEPER,PFPYF,PGPNG,PHPHL,PKPAK,PLPOL,PMSPM,PNPCN,PRPRI,PSPSE,PTPRT,PWPLW,PYPRY,QAQAT,
        REREU,ROROU,RSSRB,RURUS,RWRWA,SASAU,SBSLB,SCSYC,SDSDN,SESWE,SGSGP,SHSHN,SISVN,SJSJM,SKSVK,SLSLE,SMSMR,
        SNSEN,SOSOM,SRSUR,SSSSD,STSTP,SVSLV,SXSXM,SYSYR,SZSWZ,TCTCA,TDTCD,TFATF,TGTGO,THTHA,TJTJK,TKTKL,TLTLS,
        TMTKM,TNTUN,TOTON,TRTUR,TTTTO,TVTUV,TWTWN,TZTZA,UAUKR,UGUGA,UMUMI,USUSA,UYURY,UZUZB,VAVAT,VCVCT,VEVEN,
        VGVGB,VIVIR,VNVNM,VUVUT,WFWLF,WSWSM,YEYEM,YTMYT,ZAZAF,ZMZMB,ZWZWE
        """

    /// Every alpha-3 code with its alpha-2 one.
    public static let alpha3ToAlpha2: [String: String] = {
        var table: [String: String] = [:]
        for entry in pairs.split(whereSeparator: { $0 == "," || $0 == "\n" || $0 == " " }) where entry.count == 5 {
            table[String(entry.suffix(3))] = String(entry.prefix(2))
        }
        return table
    }()

    private static let alpha2Codes = Set(alpha3ToAlpha2.values)

    /// The alpha-2 code for an alpha-3 one, in either case (an alpha-2 code that is a country is returned as it is,
    /// upper-cased); nil for anything else.
    public static func alpha2(_ country: String?) -> String? {
        guard let country else { return nil }
        let code = country.trimmingCharacters(in: .whitespaces).uppercased()
        if code.utf8.count == 3 { return alpha3ToAlpha2[code] }
        if code.utf8.count == 2, alpha2Codes.contains(code) { return code }
        return nil
    }
}
