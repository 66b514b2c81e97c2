;; Integer arithmetic in loops: factorial, fibonacci, a counted loop.
(module
  (func $fac (export "fac") (param i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0))
      (then (i64.const 1))
      (else (i64.mul (local.get 0) (call $fac (i64.sub (local.get 0) (i64.const 1)))))))
  (func (export "fib") (param i32) (result i32)
    (local i32 i32 i32)
    (local.set 1 (i32.const 0))
    (local.set 2 (i32.const 1))
    (block $done
      (loop $next
        (br_if $done (i32.le_u (local.get 0) (i32.const 0)))
        (local.set 3 (i32.add (local.get 1) (local.get 2)))
        (local.set 1 (local.get 2))
        (local.set 2 (local.get 3))
        (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
        (br $next)))
    (local.get 1))
  (func (export "spin") (result i32)
    (local i32)
    (loop $l
      (local.set 0 (i32.add (local.get 0) (i32.const 1)))
      (br_if $l (i32.ne (local.get 0) (i32.const 1000000))))
    (local.get 0))
  (func (export "forever") (loop $l (br $l))))
