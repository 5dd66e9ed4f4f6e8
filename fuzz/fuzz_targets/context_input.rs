//! Context inputs (`context assemble`/`context fetch`): a normalized
//! input document read strictly into `ContextInput`, then assembled. Beyond
//! not panicking: every tree assembled verifies against its own index
//! digest (`context verify`), file for file, and assembly is deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::canonical::from_slice_strict;
use probity_core::context::ContextInput;
use probity_core::context::observe;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = from_slice_strict::<ContextInput>(data) else {
        return;
    };
    let Ok(assembly) = probity_ports::context::assemble(&input) else {
        return;
    };
    let verified =
        probity_ports::context::verify(&observe(assembly.tree.files()), &assembly.index_digest)
            .expect("an assembled tree verifies against its own index digest");
    assert_eq!(verified.files(), assembly.tree.files());
    assert_eq!(verified.index_digest(), assembly.index_digest);
    let again = probity_ports::context::assemble(&input).expect("assembly is deterministic");
    assert_eq!(again.tree, assembly.tree);
});
