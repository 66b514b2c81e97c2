#include "ampoule/spectest/spec_value.h"

#include <gtest/gtest.h>

namespace ampoule::spectest {
namespace {

using wasm::ValType;
using wasm::Value;

SpecValue Parse(std::string_view type, std::string_view value) {
  core::Result<SpecValue> v = ParseSpecValue(type, value, true);
  EXPECT_TRUE(v.ok()) << type << " " << value << ": " << (v.ok() ? "" : v.message());
  return v.ok() ? *v : SpecValue{};
}

TEST(SpecValueTest, ParsesIntegersAsUnsignedBitPatterns) {
  SpecValue v = Parse("i32", "4294967295");
  EXPECT_EQ(v.type, ValType::I32);
  EXPECT_EQ(v.kind, SpecValue::Kind::kExact);
  EXPECT_EQ(v.bits, 0xffffffffu);
  EXPECT_EQ(Parse("i64", "18446744073709551615").bits, UINT64_MAX);
  EXPECT_EQ(Parse("i64", "0").bits, 0u);
}

TEST(SpecValueTest, RejectsOutOfRangeAndNonDecimalNumbers) {
  EXPECT_FALSE(ParseSpecValue("i32", "4294967296", true).ok());
  EXPECT_FALSE(ParseSpecValue("f32", "4294967296", true).ok());
  EXPECT_FALSE(ParseSpecValue("i64", "18446744073709551616", true).ok());
  EXPECT_FALSE(ParseSpecValue("i32", "-1", true).ok());
  EXPECT_FALSE(ParseSpecValue("i32", "0x10", true).ok());
  EXPECT_FALSE(ParseSpecValue("i32", "12 ", true).ok());
  EXPECT_FALSE(ParseSpecValue("i32", "", true).ok());
  EXPECT_FALSE(ParseSpecValue("i32", "nan:canonical", true).ok());
  core::Result<SpecValue> bad = ParseSpecValue("i128", "1", true);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("i128"), std::string::npos);
}

TEST(SpecValueTest, FloatsAreBitPatternsAndCompareExactly) {
  SpecValue one = Parse("f32", "1065353216");  // 1.0f
  EXPECT_TRUE(Matches(one, Value::F32(1.0f)));
  EXPECT_FALSE(Matches(one, Value::F32(-1.0f)));
  // Negative zero is not zero.
  EXPECT_FALSE(Matches(Parse("f64", "0"), Value::F64(-0.0)));
  // A specific NaN payload must survive exactly.
  SpecValue payload = Parse("f32", "2141192192");  // 0x7fa00000
  EXPECT_TRUE(Matches(payload, Value::F32Bits(0x7fa00000)));
  EXPECT_FALSE(Matches(payload, Value::F32Bits(0x7fc00000)));
}

TEST(SpecValueTest, CanonicalNanAcceptsOnlyTheQuietBitEitherSign) {
  SpecValue f32 = Parse("f32", "nan:canonical");
  EXPECT_EQ(f32.kind, SpecValue::Kind::kNanCanonical);
  EXPECT_TRUE(Matches(f32, Value::F32Bits(0x7fc00000)));
  EXPECT_TRUE(Matches(f32, Value::F32Bits(0xffc00000)));
  EXPECT_FALSE(Matches(f32, Value::F32Bits(0x7fc00001)));  // arithmetic, not canonical
  EXPECT_FALSE(Matches(f32, Value::F32Bits(0x7fa00000)));  // signalling
  EXPECT_FALSE(Matches(f32, Value::F32Bits(0x7f800000)));  // infinity
  EXPECT_FALSE(Matches(f32, Value::F64Bits(0x7ff8000000000000)));  // wrong type

  SpecValue f64 = Parse("f64", "nan:canonical");
  EXPECT_TRUE(Matches(f64, Value::F64Bits(0x7ff8000000000000)));
  EXPECT_TRUE(Matches(f64, Value::F64Bits(0xfff8000000000000)));
  EXPECT_FALSE(Matches(f64, Value::F64Bits(0x7ff8000000000001)));
  EXPECT_FALSE(Matches(f64, Value::F64Bits(0x7ff0000000000001)));
}

TEST(SpecValueTest, ArithmeticNanAcceptsAnyQuietNan) {
  SpecValue f32 = Parse("f32", "nan:arithmetic");
  EXPECT_EQ(f32.kind, SpecValue::Kind::kNanArithmetic);
  EXPECT_TRUE(Matches(f32, Value::F32Bits(0x7fc00000)));
  EXPECT_TRUE(Matches(f32, Value::F32Bits(0xffc00001)));
  EXPECT_TRUE(Matches(f32, Value::F32Bits(0x7fffffff)));
  EXPECT_FALSE(Matches(f32, Value::F32Bits(0x7f800001)));  // signalling
  EXPECT_FALSE(Matches(f32, Value::F32Bits(0x7f800000)));  // infinity
  EXPECT_FALSE(Matches(f32, Value::F32(1.0f)));

  SpecValue f64 = Parse("f64", "nan:arithmetic");
  EXPECT_TRUE(Matches(f64, Value::F64Bits(0x7ffc000000000000)));
  EXPECT_TRUE(Matches(f64, Value::F64Bits(0xfff8000000000001)));
  EXPECT_FALSE(Matches(f64, Value::F64Bits(0x7ff4000000000000)));
}

TEST(SpecValueTest, TypesMustAgree) {
  EXPECT_FALSE(Matches(Parse("i32", "5"), Value::I64(5)));
  EXPECT_FALSE(Matches(Parse("f32", "0"), Value::I32(0)));
  EXPECT_TRUE(Matches(Parse("i32", "5"), Value::I32(5)));
}

TEST(SpecValueTest, ExternRefsAreNumberPlusOneAndNullIsZero) {
  SpecValue null = Parse("externref", "null");
  EXPECT_EQ(null.kind, SpecValue::Kind::kExact);
  EXPECT_EQ(null.bits, wasm::kNullRef);
  EXPECT_EQ(Parse("externref", "0").bits, 1u);
  EXPECT_EQ(Parse("externref", "41").bits, 42u);
  EXPECT_FALSE(ParseSpecValue("externref", "18446744073709551615", true).ok());
  EXPECT_TRUE(Matches(Parse("externref", "41"), Value::ExternRef(42)));
  EXPECT_FALSE(Matches(Parse("externref", "41"), Value::ExternRef(41)));
  EXPECT_FALSE(Matches(null, Value::FuncRef(0)));  // null of another type
}

TEST(SpecValueTest, RefsWithoutValueMeanAnyNonNullReference) {
  core::Result<SpecValue> func = ParseSpecValue("funcref", "", false);
  ASSERT_TRUE(func.ok());
  EXPECT_EQ(func->kind, SpecValue::Kind::kNonNullRef);
  EXPECT_TRUE(Matches(*func, Value::FuncRef(0x1234)));
  EXPECT_FALSE(Matches(*func, Value::FuncRef(wasm::kNullRef)));
  core::Result<SpecValue> ext = ParseSpecValue("externref", "", false);
  ASSERT_TRUE(ext.ok());
  EXPECT_TRUE(Matches(*ext, Value::ExternRef(7)));
  EXPECT_FALSE(Matches(*ext, Value::ExternRef(wasm::kNullRef)));
  EXPECT_TRUE(Matches(Parse("funcref", "null"), Value::FuncRef(wasm::kNullRef)));
}

TEST(SpecValueTest, NumbersWithoutValueMatchAnyValueOfTheirType) {
  core::Result<SpecValue> v = ParseSpecValue("i64", "", false);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->kind, SpecValue::Kind::kTypeOnly);
  EXPECT_TRUE(Matches(*v, Value::I64(99)));
  EXPECT_FALSE(Matches(*v, Value::I32(99)));
}

TEST(SpecValueTest, V128IsRecognisedWhateverItsValue) {
  core::Result<SpecValue> v = ParseSpecValue("v128", "", true);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->kind, SpecValue::Kind::kV128);
  EXPECT_EQ(v->type, ValType::V128);
}

TEST(SpecValueTest, ArgumentsBecomeEngineValues) {
  EXPECT_EQ(ToEngineValue(Parse("i32", "7")), Value::I32(7));
  EXPECT_EQ(ToEngineValue(Parse("f64", "4607182418800017408")), Value::F64(1.0));
  EXPECT_EQ(ToEngineValue(Parse("externref", "3")), Value::ExternRef(4));
}

TEST(SpecValueTest, FormatsForMessages) {
  EXPECT_EQ(FormatSpecValue(Parse("i32", "4294967295")), "i32:4294967295 (0xffffffff)");
  EXPECT_EQ(FormatSpecValue(Parse("f32", "nan:canonical")), "f32:nan:canonical");
  EXPECT_EQ(FormatSpecValue(Parse("f64", "4609434218613702656")), "f64:1.5 (0x3ff8000000000000)");
  EXPECT_EQ(FormatSpecValue(Parse("externref", "4")), "externref:ref.extern 4");
  EXPECT_EQ(FormatSpecValue(Parse("externref", "null")), "externref:ref.null");
  EXPECT_EQ(FormatEngineValue(Value::I32(1)), "i32:1 (0x1)");
  EXPECT_EQ(FormatEngineValue(Value::F32(2.5f)), "f32:2.5 (0x40200000)");
}

}  // namespace
}  // namespace ampoule::spectest
