pub mod classical_groups;
