//! The runtime's native code the Worker calls for model files: Web Crypto's SHA-256
//! and `DecompressionStream`.

/// `crypto.subtle.digest("SHA-256", bytes)`: the runtime's native hash.
pub(super) async fn web_crypto_sha256(
    bytes: &[u8],
) -> Result<Vec<u8>, worker::wasm_bindgen::JsValue> {
    use worker::js_sys::{Function, Promise, Reflect, Uint8Array, global};
    use worker::wasm_bindgen::JsCast;
    let crypto = Reflect::get(&global(), &"crypto".into())?;
    let subtle = Reflect::get(&crypto, &"subtle".into())?;
    let digest: Function = Reflect::get(&subtle, &"digest".into())?.dyn_into()?;
    let promise: Promise = digest
        .call2(&subtle, &"SHA-256".into(), &Uint8Array::from(bytes))?
        .dyn_into()?;
    let buffer = worker::wasm_bindgen_futures::JsFuture::from(promise).await?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Inflates a zlib stream with the runtime's `DecompressionStream("deflate")` (which
/// checks the Adler-32), stopping past `limit` bytes (`Ok(None)`).
pub(super) async fn web_inflate_zlib(
    compressed: &[u8],
    limit: usize,
) -> Result<Option<Vec<u8>>, worker::wasm_bindgen::JsValue> {
    use worker::js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array, global};
    use worker::wasm_bindgen::JsCast;
    use worker::wasm_bindgen_futures::JsFuture;
    const STEP: u32 = 1 << 20;
    let method = |target: &worker::wasm_bindgen::JsValue, name: &str| -> Result<Function, _> {
        Reflect::get(target, &name.into())?.dyn_into::<Function>()
    };
    let construct = |name: &str, argument: &worker::wasm_bindgen::JsValue| {
        let class: Function = Reflect::get(&global(), &name.into())?.dyn_into()?;
        Reflect::construct(&class, &Array::of1(argument))
    };
    let input = construct("Response", &Uint8Array::from(compressed).into())?;
    let stream = Reflect::get(&input, &"body".into())?;
    let inflating = construct("DecompressionStream", &"deflate".into())?;
    let inflated = method(&stream, "pipeThrough")?.call1(&stream, &inflating)?;
    // Read through a byte reader a megabyte at a time (workerd's `readAtLeast`): four
    // round trips for Toronto instead of one per 4 KiB chunk (725), which cost more than
    // the inflating itself; never more than `limit` plus one step is held.
    let collected = construct("Response", &inflated)?;
    let body = Reflect::get(&collected, &"body".into())?;
    let options = Object::new();
    Reflect::set(&options, &"mode".into(), &"byob".into())?;
    let reader = method(&body, "getReader")?.call1(&body, &options)?;
    let read_at_least = method(&reader, "readAtLeast")?;
    let mut out = Vec::new();
    loop {
        let view = Uint8Array::new_with_length(STEP);
        let next: Promise = read_at_least
            .call2(&reader, &STEP.into(), &view)?
            .dyn_into()?;
        let result = JsFuture::from(next).await?;
        let value = Reflect::get(&result, &"value".into())?;
        if !value.is_undefined() {
            let chunk = Uint8Array::new(&value);
            let start = out.len();
            let end = start + chunk.length() as usize;
            if end > limit {
                let _ = method(&reader, "cancel")?.call0(&reader);
                return Ok(None);
            }
            out.resize(end, 0);
            chunk.copy_to(&mut out[start..]);
        }
        if Reflect::get(&result, &"done".into())?.as_bool() == Some(true) {
            return Ok(Some(out));
        }
    }
}
