pub fn check(_: &crate::Bsp) {}
