//! Gives each block of quota this isolate was granted back to its account's gate once the
//! block ends, from `ctx.wait_until`, so that a key's count settles even when no
//! request of it follows (a block lasts at most `BLOCK_SECONDS`, 20 s, within the 30 s
//! a Worker may run after its answer). What is owed is the isolate's [`HeldBlocks`];
//! a failed return stays owed, and goes with the key's next call to its gate.

use std::cell::RefCell;
use std::rc::Rc;

use worker::{Context, Env, Request};

use super::gate_object;
use crate::api::access::gate::BlockReturns;
use crate::api::access::gate::directory::GateDirectory;
use crate::api::access::held_blocks::HeldBlocks;

/// A little past a block's end, so the clock has moved beyond it.
const AFTER_END_MS: i64 = 50;

/// Schedules the return of every block granted during this request.
pub(super) fn schedule(
    ctx: &Context,
    env: &Env,
    held_blocks: &Rc<RefCell<HeldBlocks>>,
    directory: &Rc<RefCell<GateDirectory>>,
) {
    for (digest, until) in held_blocks.borrow_mut().take_granted() {
        let (env, held_blocks, directory) =
            (env.clone(), Rc::clone(held_blocks), Rc::clone(directory));
        ctx.wait_until(async move {
            let wait = (until - super::now()).num_milliseconds().max(0) + AFTER_END_MS;
            worker::Delay::from(std::time::Duration::from_millis(wait.unsigned_abs())).await;
            let returned = held_blocks.borrow_mut().due(&digest, super::now());
            if returned.is_empty() {
                return;
            }
            let returns = BlockReturns { digest, returned };
            if let Err(err) = send(&env, &directory, &returns).await {
                worker::console_error!("keys: returning a block to its gate: {err}");
                held_blocks
                    .borrow_mut()
                    .owe(&returns.digest, returns.returned);
            }
        });
    }
}

async fn send(
    env: &Env,
    directory: &RefCell<GateDirectory>,
    returns: &BlockReturns,
) -> worker::Result<()> {
    let Some((gate, _)) =
        gate_object::gate_of(env, directory, &returns.digest, super::now()).await?
    else {
        // The key is gone from the store: nothing counts its blocks any more.
        return Ok(());
    };
    let stub = gate_object::stub(env, &gate)?;
    let body =
        serde_json::to_string(returns).map_err(|e| worker::Error::RustError(e.to_string()))?;
    let mut init = worker::RequestInit::new();
    init.with_method(worker::Method::Post)
        .with_body(Some(body.into()));
    let answer = stub
        .fetch_with_request(Request::new_with_init(
            &gate_object::url(gate_object::RETURN),
            &init,
        )?)
        .await?;
    if answer.status_code() == 200 {
        Ok(())
    } else {
        Err(worker::Error::RustError(format!(
            "gate answered HTTP {}",
            answer.status_code()
        )))
    }
}
