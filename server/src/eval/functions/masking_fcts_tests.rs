use super::*;
use cql::statement::ast::Literal;

fn typed(ty: ColumnType, text: &str) -> Provided {
    Provided::Typed {
        ty,
        text: text.into(),
    }
}

fn int_lit(n: i32) -> Provided {
    Provided::Literal(Literal::Integer(n.to_string()))
}

fn text(s: &str) -> Option<Bytes> {
    Some(Bytes::copy_from_slice(s.as_bytes()))
}

fn int(n: i32) -> Option<Bytes> {
    Some(Bytes::copy_from_slice(&n.to_be_bytes()))
}

fn masked(kind: MaskFn, value: &str, begin: i32, end: i32) -> String {
    String::from_utf16_lossy(&mask(kind, value, begin, end, DEFAULT_PADDING))
}

/// Cassandra's own cases for `PartialMaskingFunction.Kind.mask`.
#[test]
fn inner_and_outer_mask_the_positions_cassandra_does() {
    let cases = [
        ("", 9, 9, "", ""),
        ("a", 0, 0, "*", "a"),
        ("a", 10, 10, "a", "*"),
        ("abcde", 0, 1, "****e", "abcd*"),
        ("abcde", 0, 6, "abcde", "*****"),
        ("abcde", 2, 0, "ab***", "**cde"),
        ("abcde", 1, 1, "a***e", "*bcd*"),
        ("abcde", 2, 2, "ab*de", "**c**"),
        ("abcde", 3, 3, "abcde", "*****"),
        ("á#íòü", 1, 1, "á***ü", "*#íò*"),
    ];
    for (value, begin, end, inner, outer) in cases {
        assert_eq!(masked(MaskFn::Inner, value, begin, end), inner, "{value}");
        assert_eq!(masked(MaskFn::Outer, value, begin, end), outer, "{value}");
    }
    assert_eq!(masked(MaskFn::Inner, "abcde", -2, -2), "*****");
    // `length - 1 - end` wraps as Java int arithmetic does: nothing is inside.
    assert_eq!(masked(MaskFn::Outer, "abcde", i32::MIN, i32::MIN), "*****");
}

#[test]
fn partial_masks_take_null_positions_as_zero_and_check_the_padding() {
    let f = MaskFn::Inner
        .for_arguments(&[
            typed(ColumnType::Text, "v"),
            int_lit(1),
            int_lit(2),
            typed(ColumnType::Text, "p"),
        ])
        .expect("a signature");
    let run = |args: &[Option<Bytes>]| execute(f, MaskFn::Inner, args);
    let out = run(&[text("abcdef"), int(1), int(2), text("#")]).expect("runs");
    assert_eq!(out, text("a###ef"));
    let out = run(&[text("abcdef"), None, None, None]).expect("runs");
    assert_eq!(out, text("******"));
    assert_eq!(run(&[None, int(1), int(1), None]).expect("runs"), None);
    let err = run(&[text("abc"), int(1), int(1), text("too_long")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "The padding argument for function system.mask_inner should be single-character, \
         but 'too_long' has 8 characters."
    );
    assert!(run(&[text("abc"), int(0), int(0), text("é")]).is_ok());
}

#[test]
fn ascii_results_replace_what_ascii_cannot_hold() {
    assert_eq!(
        encode(&"aé".encode_utf16().collect::<Vec<_>>(), true),
        b"a?"
    );
    assert_eq!(encode(&[0xD800, 0x61], false), b"?a");
}

#[test]
fn hash_uses_sha_256_unless_told_and_refuses_unknown_algorithms() {
    let f = MaskFn::Hash
        .for_arguments(&[typed(ColumnType::Text, "v")])
        .expect("a signature");
    assert_eq!(f.ret, ColumnType::Blob);
    let out = execute(f, MaskFn::Hash, &[text("abc")])
        .expect("runs")
        .expect("a hash");
    assert_eq!(
        out[..4],
        [0xba, 0x78, 0x16, 0xbf],
        "SHA-256 of 'abc' starts ba7816bf"
    );
    let with = MaskFn::Hash
        .for_arguments(&[typed(ColumnType::Int, "i"), typed(ColumnType::Text, "a")])
        .expect("a signature");
    assert_eq!(with.args, vec![ColumnType::Int, ColumnType::Text]);
    let md5 = execute(with, MaskFn::Hash, &[text("abc"), text("md5")]).expect("runs");
    assert_eq!(md5.map(|b| b.len()), Some(16));
    let sha512 = execute(with, MaskFn::Hash, &[text("abc"), text("SHA-512")]).expect("runs");
    assert_eq!(sha512.map(|b| b.len()), Some(64));
    let err = execute(with, MaskFn::Hash, &[None, text("unknown-algorithm")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Hash algorithm not found: unknown-algorithm"
    );
}

#[test]
fn default_values_are_cassandras_masked_values() {
    let value = |ty: &ColumnType| masked_value(ty).expect("defined");
    assert_eq!(value(&ColumnType::Text), CqlValue::Text("****".into()));
    assert_eq!(value(&ColumnType::Date), CqlValue::Date(1 << 31));
    assert_eq!(
        value(&ColumnType::Timeuuid),
        CqlValue::Timeuuid(
            uuid::Uuid::parse_str("13814000-1dd2-11b2-8080-808080808080").expect("uuid")
        )
    );
    assert_eq!(
        value(&ColumnType::Tuple(vec![ColumnType::Int, ColumnType::Ascii])),
        CqlValue::Tuple(vec![
            Some(CqlValue::Int(0)),
            Some(CqlValue::Ascii("****".into()))
        ])
    );
    assert_eq!(masked_value(&ColumnType::Custom("a.B".into())), None);
    let f = MaskFn::Default
        .for_arguments(&[typed(ColumnType::Bigint, "b")])
        .expect("a signature");
    let out = execute(f, MaskFn::Default, &[None]).expect("runs");
    assert_eq!(out, Some(Bytes::copy_from_slice(&0i64.to_be_bytes())));
}

#[test]
fn factories_print_and_refuse_as_cassandras() {
    assert_eq!(
        MaskFn::Inner.factory_text(),
        "system.mask_inner([text|varchar|ascii], int, int, [text])"
    );
    assert_eq!(
        MaskFn::Replace.factory_text(),
        "system.mask_replace(any, same)"
    );
    assert_eq!(MaskFn::Hash.factory_text(), "system.mask_hash(any, [text])");
    let err = MaskFn::Outer
        .for_arguments(&[typed(ColumnType::Int, "v"), int_lit(1), int_lit(2)])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Function system.mask_outer requires an argument of type [text|varchar|ascii], \
         but found argument v of type int"
    );
    let err = MaskFn::Null.for_arguments(&[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid number of arguments for function system.mask_null(any)"
    );
    let err = MaskFn::Null
        .for_arguments(&[Provided::Marker("?".into())])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Cannot infer type of argument ? in call to function system.mask_null(any): \
         use type casts to disambiguate"
    );
    let replace = MaskFn::Replace
        .for_arguments(&[typed(ColumnType::Varint, "v"), int_lit(1)])
        .expect("a signature");
    assert_eq!(
        replace.to_string(),
        "system.mask_replace : (varint, varint) -> varint"
    );
    let literal = MaskFn::Inner
        .for_arguments(&[
            Provided::Literal(Literal::String("abc".into())),
            int_lit(1),
            Provided::Literal(Literal::Null),
        ])
        .expect("a signature");
    assert_eq!(literal.ret, ColumnType::Ascii);
}
