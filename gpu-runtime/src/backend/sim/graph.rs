//! Graphs on the simulator: each launch recorded by a capture, kept with its kernel body
//! and arguments, and run in order at every replay.

use crate::def::kernel::KernelDef;
use crate::dtype::DtypeKind;
use crate::error::Result;
use crate::host::launch_config::LaunchConfig;

/// One recorded launch.
pub(crate) struct SimNode {
    pub def: &'static KernelDef,
    pub dtypes: Vec<DtypeKind>,
    /// Its configuration, without the capture's stream.
    pub cfg: LaunchConfig<'static>,
    /// The kernel body over the launch's arguments (see `private::launch_sim`).
    pub thread: Box<dyn Fn() + Send + Sync>,
}

/// Run `nodes` in order, each as a launch; the first error stops the replay. The caller
/// holds `memory::replay_lock`.
pub(crate) fn replay(nodes: &[SimNode]) -> Result<()> {
    for node in nodes {
        crate::private::run_sim(node.def, &node.dtypes, &node.cfg, &*node.thread)?;
    }
    Ok(())
}
