#[allow(dead_code)]
#[path = "monte_carlo_pi.rs"]
mod pi;
fn main() {
    let def = pi::compute_pi::definition();
    println!("{}", def.ptx(&[], "sm_90").unwrap());
}
