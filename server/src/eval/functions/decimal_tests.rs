use super::*;

fn d(text: &str) -> BigDecimal {
    parse(text).expect("decimal")
}

fn s(value: &BigDecimal) -> String {
    java_string(value)
}

#[test]
fn to_string_matches_big_decimal() {
    for (text, java) in [
        ("0", "0"),
        ("0.0", "0.0"),
        ("0.00", "0.00"),
        ("-45", "-45"),
        ("0.001", "0.001"),
        ("0.00000123", "0.00000123"),
        ("0.000000123", "1.23E-7"),
        ("-0.0000001", "-1E-7"),
        ("1230", "1230"),
        ("1.23E+3", "1.23E+3"),
        ("1E+1", "1E+1"),
        ("6.30", "6.30"),
        ("1e2147483647", "1E+2147483647"),
    ] {
        assert_eq!(s(&d(text)), java, "{text}");
    }
    let zero_scaled = BigDecimal::new(BigInt::zero(), -2);
    assert_eq!(s(&zero_scaled), "0E+2");
}

#[test]
fn wire_form_round_trips_any_length() {
    let big = d(&format!("-{}.5", "9".repeat(100)));
    let bytes = encode(&big).expect("fits");
    assert_eq!(&bytes[..4], &1i32.to_be_bytes());
    assert_eq!(s(&decode(&bytes).expect("decodes")), s(&big));
    let tiny = BigDecimal::new(BigInt::from(1), i64::from(i32::MAX) + 1);
    assert_eq!(encode(&tiny).expect_err("too small"), "Underflow");
    let huge = BigDecimal::new(BigInt::from(1), i64::from(i32::MIN) - 1);
    assert_eq!(encode(&huge).expect_err("too large"), "Overflow");
}

#[test]
fn addition_is_exact_up_to_ten_thousand_digits() {
    let one = d("1");
    let sum = add(&d("1e9999"), &one);
    assert_eq!(s(&sum), format!("1{}1", "0".repeat(9998)));
    // 10,001 digits: the last is rounded away, HALF_UP.
    let sum = add(&d("1e10000"), &one);
    assert_eq!(compare(&sum, &d("1e10000")), Ordering::Equal);
    assert_eq!(precision(&sum), 10_000);
    let sum = add(&d("1e10000"), &d("5"));
    assert_eq!(compare(&sum, &d("1.000000001e10000")), Ordering::Less);
    assert_eq!(
        compare(&sum, &(d("1e10000") + d("10"))),
        Ordering::Equal,
        "HALF_UP rounds ...05 to ...10"
    );
    let sum = add(&d("-1e10000"), &d("-5"));
    assert_eq!(compare(&sum, &(d("-1e10000") - d("10"))), Ordering::Equal);
    assert_eq!(s(&add(&d("1.5"), &d("2.25"))), "3.75");
    assert_eq!(s(&subtract(&d("1.5"), &d("2.25"))), "-0.75");
    assert_eq!(s(&add(&d("0.00"), &d("5"))), "5.00");
}

#[test]
fn far_apart_operands_add_cheaply() {
    let sum = add(&d("19866597869857659876855e1000000000"), &d("1"));
    assert_eq!(precision(&sum), 10_000);
    assert_eq!(
        compare(&sum, &d("19866597869857659876855e1000000000")),
        Ordering::Equal
    );
    let sum = add(&d("1"), &d("1e-1000000000"));
    assert_eq!(precision(&sum), 10_000);
    assert_eq!(compare(&sum, &d("1")), Ordering::Equal);
}

#[test]
fn multiplication_beyond_128_bits() {
    let x = d("123456789012345678901234567890.5");
    let product = multiply(&x, &x);
    assert_eq!(
        s(&product),
        "15241578753238836750495351562659655576514250878776253619990.25"
    );
}

#[test]
fn division_follows_cassandras_scale_rule() {
    let q = |a: &str, b: &str| s(&divide(&d(a), &d(b)).expect("divides"));
    assert_eq!(q("8.5", "2"), "4.25");
    assert_eq!(q("6", "3"), "2");
    assert_eq!(q("100", "1"), "1E+2");
    assert_eq!(q("1", "3"), format!("0.{}", "3".repeat(32)));
    assert_eq!(q("1", "6"), format!("0.1{}7", "6".repeat(30)));
    assert_eq!(q("1", "30"), format!("0.0{}", "3".repeat(32)));
    assert_eq!(q("10", "3"), format!("3.{}", "3".repeat(32)));
    assert_eq!(
        q(&format!("1.{}", "0".repeat(40)), "3"),
        format!("0.{}", "3".repeat(40))
    );
    assert_eq!(
        q(&format!("1.{}", "0".repeat(1001)), "3"),
        format!("0.{}", "3".repeat(1000))
    );
    assert_eq!(q("-1", "3"), format!("-0.{}", "3".repeat(32)));
    assert_eq!(q("1", "4"), "0.25");
    assert_eq!(q("1", "1e100"), "1E-100");
    let big = format!("1{}", "0".repeat(60));
    assert_eq!(q(&big, "7"), "142857142857142857142857142857142857142857142857142857142857.14285714285714285714285714285714");
    assert_eq!(
        divide(&d("1"), &d("0")).expect_err("by zero"),
        "BigInteger divide by zero"
    );
    assert_eq!(
        divide(&d("0"), &d("0")).expect_err("undefined"),
        "/ by zero"
    );
    assert!(divide(&d("1e1000000000"), &d("3"))
        .expect_err("too long")
        .contains("exceeds the maximum"));
}

#[test]
fn remainder_follows_big_decimal() {
    let r = |a: &str, b: &str| s(&remainder(&d(a), &d(b)).expect("remainder"));
    assert_eq!(r("7", "3"), "1");
    assert_eq!(r("7.5", "2"), "1.5");
    assert_eq!(r("-7", "3"), "-1");
    assert_eq!(r("7", "-3"), "1");
    assert_eq!(r("1e35", "3"), "1");
    assert_eq!(r("1.7", "0.5"), "0.2");
    assert_eq!(r("100", "0.5"), "0");
    assert_eq!(r("1", "7.25"), "1");
    assert_eq!(
        remainder(&d("1"), &d("0")).expect_err("by zero"),
        "Division by zero"
    );
    assert_eq!(
        remainder(&d("0"), &d("0")).expect_err("undefined"),
        "Division undefined"
    );
}

#[test]
fn rounding_modes() {
    let r = |n: i64, den: i64, mode| div_round(&BigInt::from(n), &BigInt::from(den), mode);
    assert_eq!(r(5, 2, Rounding::HalfUp), BigInt::from(3));
    assert_eq!(r(5, 2, Rounding::HalfEven), BigInt::from(2));
    assert_eq!(r(-5, 2, Rounding::HalfUp), BigInt::from(-3));
    assert_eq!(r(-7, 2, Rounding::HalfEven), BigInt::from(-4));
    assert_eq!(r(7, -3, Rounding::HalfUp), BigInt::from(-2));
    assert_eq!(s(&strip_trailing_zeros(d("1.2300"))), "1.23");
    assert_eq!(s(&strip_trailing_zeros(d("0.000"))), "0");
}

#[test]
fn integer_part_and_floats() {
    assert_eq!(trunc(&d("-12.9")), Some(BigInt::from(-12)));
    assert_eq!(trunc(&d("0.5e-3")), Some(BigInt::zero()));
    assert_eq!(trunc(&d("1e3")), Some(BigInt::from(1000)));
    assert_eq!(trunc(&d("1e1000000000")), None);
    assert_eq!(to_f64(&d("6.3")), 6.3);
    assert_eq!(to_f64(&d(&format!("0.{}1", "0".repeat(2000)))), 0.0);
    let long = d(&format!("1.{}", "3".repeat(5000)));
    assert_eq!(to_f64(&long), 1.3333333333333333);
}
