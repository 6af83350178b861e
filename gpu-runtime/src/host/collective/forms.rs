//! The collectives' API: [`Collectives`], on a [`Communicator`] or on one of its streams
//! ([`OnStream`]). Each of the five collectives has two forms, from another array and in
//! place; the ten are made from one table ([`collective_forms!`]), each row a collective,
//! its kind and how its arrays' lengths relate ([`Shape`]).

use super::reduce::{ReduceOp, Reducible};
use super::run::{Arrays, Kind, Source};
use super::{sealed, Communicator};
use crate::dtype::Element;
use crate::error::Result;
use crate::host::array::DeviceArray;
use crate::host::stream::Stream;

/// A communicator's calls on one stream ([`Communicator::on`]).
#[derive(Debug, Clone, Copy)]
pub struct OnStream<'a> {
    pub(super) comm: &'a Communicator,
    pub(super) stream: Option<&'a Stream>,
}

/// How a collective's lengths relate: the sent and the received arrays are as long
/// (`Same`), the received one is `world_size` times the sent one (`Gather`), or the sent
/// one `world_size` times the received one (`Scatter`). In place, a gathered array holds
/// each rank's part at `rank * n` (`n` its length over the ranks), and a scattered one
/// leaves this rank's part there.
#[derive(Clone, Copy)]
pub(super) enum Shape {
    Same,
    Gather,
    Scatter,
}

impl Shape {
    /// The elements read and written by the form from `send` into `recv`, or the error
    /// of a length that does not fit.
    fn lengths(
        self,
        s: &OnStream<'_>,
        send: usize,
        recv: usize,
        operation: &str,
    ) -> Result<(usize, usize)> {
        match self {
            Shape::Same => Ok((recv, recv)),
            Shape::Gather => Ok((send, s.times_world(send, operation)?)),
            Shape::Scatter => Ok((s.times_world(recv, operation)?, recv)),
        }
    }

    /// Where the in-place form reads in `buf` of `len` elements, and the elements it
    /// reads and writes.
    fn lengths_in_place(
        self,
        s: &OnStream<'_>,
        len: usize,
        operation: &str,
    ) -> Result<(usize, usize, usize)> {
        match self {
            Shape::Same => Ok((0, len, len)),
            Shape::Gather => {
                let n = s.part(len, operation)?;
                Ok((s.comm.rank() * n, n, len))
            }
            Shape::Scatter => {
                s.part(len, operation)?;
                Ok((0, len, len))
            }
        }
    }
}

/// The trait [`Collectives`] with its two forms of each collective: a row names the form
/// from another array and its in-place form (each with its docs), the dtype bound, the
/// collective's own parameters, the kind, how it runs (`reducing` or `moving`) and its
/// [`Shape`].
macro_rules! collective_forms {
    ($(
        $(#[$doc:meta])* fn $name:ident;
        $(#[$in_doc:meta])* fn $in_place:ident;
        <T: $bound:ident>($($p:ident: $pt:ty),*) => $run:ident($kind:expr), $shape:ident;
    )*) => {
        /// The collectives, on a [`Communicator`] (queued on its device's default stream) or on
        /// [`Communicator::on`]`(&stream)`. In the prelude.
        pub trait Collectives: sealed::Sealed {
            #[doc(hidden)]
            /// The communicator and the stream the calls are queued on.
            fn target(&self) -> OnStream<'_>;

            $(
                $(#[$doc])*
                fn $name<T: $bound>(
                    &self,
                    send: &DeviceArray<T>,
                    recv: &mut DeviceArray<T>,
                    $($p: $pt),*
                ) -> Result<()> {
                    let s = self.target();
                    let (src_len, dst_len) =
                        Shape::$shape.lengths(&s, send.len(), recv.len(), stringify!($name))?;
                    let arrays = Arrays {
                        src: Source::Array(send),
                        src_len,
                        dst: recv,
                        dst_len,
                    };
                    s.$run($kind, arrays)
                }

                $(#[$in_doc])*
                fn $in_place<T: $bound>(&self, buf: &mut DeviceArray<T>, $($p: $pt),*) -> Result<()> {
                    let s = self.target();
                    let (offset, src_len, dst_len) =
                        Shape::$shape.lengths_in_place(&s, buf.len(), stringify!($in_place))?;
                    let arrays = Arrays {
                        src: Source::InPlace { offset },
                        src_len,
                        dst: buf,
                        dst_len,
                    };
                    s.$run($kind, arrays)
                }
            )*

            /// Send `buf` to rank `peer`, which receives it with [`Collectives::recv`] of the
            /// same length. Between two ranks that both send and receive, put the pair in a
            /// [`group`](super::group), as NCCL requires.
            fn send<T: Element>(&self, buf: &DeviceArray<T>, peer: usize) -> Result<()> {
                let s = self.target();
                s.point_to_point(Some(buf), None, peer)
            }

            /// Receive into `buf` what rank `peer` sends.
            fn recv<T: Element>(&self, buf: &mut DeviceArray<T>, peer: usize) -> Result<()> {
                let s = self.target();
                s.point_to_point(None, Some(buf), peer)
            }
        }
    };
}

collective_forms! {
    /// Every rank's `send` combined by `op`, in every rank's `recv` (the same length).
    fn all_reduce;
    /// [`Collectives::all_reduce`] in place: `buf` is sent and overwritten.
    fn all_reduce_in_place;
    <T: Reducible>(op: ReduceOp) => reducing(Kind::AllReduce(op)), Same;

    /// Rank `root`'s `send` in every rank's `recv` (the same length; `send` is read on
    /// the root only).
    fn broadcast;
    /// [`Collectives::broadcast`] in place: the root's `buf` overwrites the others'.
    fn broadcast_in_place;
    <T: Element>(root: usize) => moving(Kind::Broadcast(root)), Same;

    /// Every rank's `send` combined by `op`, in rank `root`'s `recv` (the same length;
    /// the other ranks' `recv` is left as it is).
    fn reduce;
    /// [`Collectives::reduce`] in place: the root's `buf` is overwritten.
    fn reduce_in_place;
    <T: Reducible>(op: ReduceOp, root: usize) => reducing(Kind::Reduce(op, root)), Same;

    /// Every rank's `send`, rank after rank, in every rank's `recv` (`world_size` times
    /// as long).
    fn all_gather;
    /// [`Collectives::all_gather`] in place: each rank's part is already at its place in
    /// `buf` (elements `rank * n ..`, `n = buf.len() / world_size`).
    fn all_gather_in_place;
    <T: Element>() => moving(Kind::AllGather), Gather;

    /// Every rank's `send` combined by `op`, part `rank` of it in rank `rank`'s `recv`
    /// (`send` is `world_size` times as long).
    fn reduce_scatter;
    /// [`Collectives::reduce_scatter`] in place: this rank's part is left at its place in
    /// `buf` (elements `rank * n ..`), the rest of `buf` unspecified.
    fn reduce_scatter_in_place;
    <T: Reducible>(op: ReduceOp) => reducing(Kind::ReduceScatter(op)), Scatter;
}

impl sealed::Sealed for Communicator {}
impl Collectives for Communicator {
    fn target(&self) -> OnStream<'_> {
        OnStream {
            comm: self,
            stream: None,
        }
    }
}

impl sealed::Sealed for OnStream<'_> {}
impl Collectives for OnStream<'_> {
    fn target(&self) -> OnStream<'_> {
        *self
    }
}
