//! The Hopper prefill kernel's integer row maxima (kernels/prefill_sm90.cu `INT_MAXIMA`, on by
//! default since session 61) and its off switch, `BLASST_PREFILL_INT_MAXIMA=0`: the switch
//! reaches the Hopper prefill kernels' source only, changes their disk-cache key, and the
//! kernels it brings back (the float tree alone, as before session 61) still compile for sm_90a
//! without spills and without ptxas serialising a wgmma pipeline. Its own test binary: the switch
//! is read from the environment at every compile, so it must not leak into other tests. No GPU
//! needed; without NVRTC it checks the source alone. The rule the integer maxima rest on is
//! checked here too; that both forms give the same bits is tests/gpu.rs
//! `integer_row_maxima_match_the_float_tree_bit_for_bit`, on the GPU machine.

#[path = "common/source_switch.rs"]
mod source_switch;

#[test]
fn the_int_maxima_switch_reaches_the_hopper_prefill_kernels_only_and_compiles() {
    // Every head dim's kernels: dense, Skip-Softmax and the calibration sweep.
    source_switch::prefill90_switch_compiles(
        "BLASST_PREFILL_INT_MAXIMA",
        "0",
        "#define PREFILL90_INT_MAXIMA 0\n",
        |_| true,
        |_| true,
    );
}

/// The rule the kernel's integer maxima rest on, over random, all-negative, zero and special
/// values (the kernel's own code runs in tests/gpu.rs on the GPU): where the signed integer
/// maximum of a lane's 16 scores' bits, minus one as unsigned, lies below +Inf's bits (the
/// kernel's test for taking the integer result), it is the bits of the fmaxf maximum.
#[test]
fn integer_maxima_above_zero_are_the_float_maxima() {
    let specials = [
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
    ];
    let mut rng = blasst::synth::Rng::new(61);
    let (mut taken, mut fallbacks) = (0, 0);
    for trial in 0..200_000 {
        let v: Vec<f32> = (0..16)
            .map(|_| match trial % 4 {
                0 => rng.normal(),
                1 => -rng.normal().abs(),
                2 => specials[rng.below(specials.len())],
                _ if rng.below(5) == 0 => specials[rng.below(specials.len())],
                _ => rng.normal(),
            })
            .collect();
        let x = v.iter().map(|f| f.to_bits() as i32).max().unwrap();
        if (x as u32).wrapping_sub(1) >= 0x7f80_0000 {
            fallbacks += 1;
            continue;
        }
        taken += 1;
        // fmaxf: NaN passes over, -0 below +0.
        let m = v.iter().copied().fold(f32::NAN, |a, b| {
            if a.is_nan() || (b > a) || (a == 0.0 && b == 0.0 && a.is_sign_negative()) {
                if b.is_nan() { a } else { b }
            } else {
                a
            }
        });
        assert_eq!(x as u32, m.to_bits(), "{v:?}");
    }
    assert!(
        taken > 50_000 && fallbacks > 50_000,
        "{taken} taken, {fallbacks} fallbacks"
    );
}
