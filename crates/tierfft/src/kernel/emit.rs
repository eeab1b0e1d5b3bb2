//! A statement list with fresh temporary names.

use super::ir::{Expr, Stmt, Ty, var};

/// Collects statements; hands out unique names for temporaries.
#[derive(Default)]
pub struct Emitter {
    /// The statements so far.
    pub stmts: Vec<Stmt>,
    next: usize,
}

impl Emitter {
    /// Binds `e` to a fresh immutable temporary and returns it as a variable.
    pub fn bind(&mut self, ty: Ty, e: Expr) -> Expr {
        if matches!(e, Expr::Var(_) | Expr::U32(_)) {
            return e;
        }
        let name = format!("x{}", self.next);
        self.next += 1;
        self.stmts.push(Stmt::Let(name.clone(), ty, e));
        var(name)
    }

    /// Declares a fresh mutable temporary of type `ty` holding `e`, and returns its name.
    pub fn var(&mut self, ty: Ty, e: Expr) -> String {
        let name = format!("y{}", self.next);
        self.next += 1;
        self.stmts.push(Stmt::Var(name.clone(), ty, e));
        name
    }

    /// Binds `e` to the name `name`.
    pub fn let_(&mut self, name: &str, ty: Ty, e: Expr) -> Expr {
        self.stmts.push(Stmt::Let(name.to_string(), ty, e));
        var(name)
    }

    /// Appends a statement.
    pub fn push(&mut self, s: Stmt) {
        self.stmts.push(s);
    }

    /// Appends a comment.
    pub fn comment(&mut self, text: impl Into<String>) {
        self.stmts.push(Stmt::Comment(text.into()));
    }
}
