// A method's receiver that is a value, not a place (`P::new(x).scale(2.0)`): the call
// works on a temporary, as Rust's does, which lives until the call's statement ends; a
// method that takes `&mut self` binds to it by reference.
template <class T> static __device__ __forceinline__ T& gt_rv(T&& value) { return value; }

// A method's receiver evaluated before its arguments (Rust's order, where an argument has
// an effect): for a method that takes `&mut self` the place itself, which the method
// changes; for `self` and `&self` a copy of its value now.
template <bool ByRef> struct gt_recv_of;
template <> struct gt_recv_of<true> {
    template <class T> static __device__ __forceinline__ T& get(T& place) { return place; }
};
template <> struct gt_recv_of<false> {
    template <class T> static __device__ __forceinline__ T get(const T& place) { return place; }
};

// A method's receiver that is a checked element: the element, or, out of range (the fault
// already noted), `zero`, a zeroed temporary that lives until the call's statement ends,
// rather than the shared sink, whose bytes may be another type's.
template <typename T, typename Z>
static __device__ __forceinline__ T& gt_rat(T* p, Z&& zero) {
    if (p == gt_sink<T>()) return zero;
    return *p;
}

// The type a user trait's method is called for (`x.sq()` on a `float`, `T::zero()`): each
// `#[gpu_device] impl Tr for f32` defines its methods as overloads whose first parameter
// is `gt_self<float>`, so one call in a generic function's template reaches the
// implementation of whichever dtype instantiates it.
template <typename S> struct gt_self {};
