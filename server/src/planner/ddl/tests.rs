//! Printed-plan tests of schema statements.
