;; Bit operations and sign extension.
(module
  (func (export "i32") (param i32) (result i32)
    (i32.xor
      (i32.rotl (i32.clz (local.get 0)) (i32.ctz (i32.const 8)))
      (i32.popcnt (i32.extend8_s (i32.const 0x80)))))
  (func (export "i64") (param i64) (result i64)
    (i64.shr_s (i64.extend32_s (i64.const 0x80000000)) (i64.rotr (local.get 0) (i64.const 3))))
  (func (export "wrap") (result i32)
    (i32.wrap_i64 (i64.rem_u (i64.const -1) (i64.const 7)))))
