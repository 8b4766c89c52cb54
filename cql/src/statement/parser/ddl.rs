//! Schema statements: USE, TRUNCATE, CREATE/ALTER/DROP of keyspaces, tables, indexes and types.

use super::{Parser, Result};
use crate::statement::ast::{
    AlterKeyspace, AlterTable, AlterTableAction, AlterType, ColumnDefinition, CreateIndex,
    CreateKeyspace, CreateTable, CreateType, Ident, IndexTarget, Order, PropertyValue,
    QualifiedName, Statement,
};
use crate::statement::lexer::TokenKind;

use super::expr::raw_text;

impl Parser<'_> {
    /// `USE ks`.
    pub(crate) fn use_statement(&mut self) -> Result<Statement> {
        self.expect_kw("use")?;
        Ok(Statement::Use(self.keyspace_name()?))
    }

    /// `TRUNCATE [TABLE] t`.
    pub(crate) fn truncate_statement(&mut self) -> Result<Statement> {
        self.expect_kw("truncate")?;
        self.eat_table_kw();
        Ok(Statement::Truncate(self.qualified_name()?))
    }

    /// `CREATE KEYSPACE | TABLE | [CUSTOM] INDEX | TYPE`.
    pub(crate) fn create_statement(&mut self) -> Result<Statement> {
        self.expect_kw("create")?;
        if self.eat_keyspace_kw() {
            let if_not_exists = self.if_not_exists()?;
            let name = self.keyspace_name()?;
            self.expect_kw("with")?;
            let properties = self.properties()?;
            return Ok(Statement::CreateKeyspace(CreateKeyspace {
                name,
                if_not_exists,
                properties,
            }));
        }
        if self.eat_table_kw() {
            return self.create_table();
        }
        if self.is_kw("index") || self.is_kw("custom") {
            return self.create_index();
        }
        if self.eat_kw("type") {
            return self.create_type();
        }
        if self.eat_kws(&["materialized", "view"]) {
            return self.create_view();
        }
        if self.is_kw("role") || self.is_kw("user") {
            return self.create_role();
        }
        if self.is_kw("or") || self.is_kw("function") || self.is_kw("aggregate") {
            return self.create_function();
        }
        if self.is_kw("trigger") {
            return self.create_trigger();
        }
        Err(self.no_viable())
    }

    /// `ALTER KEYSPACE | TABLE | TYPE`.
    pub(crate) fn alter_statement(&mut self) -> Result<Statement> {
        self.expect_kw("alter")?;
        if self.eat_keyspace_kw() {
            let if_exists = self.if_exists()?;
            let name = self.keyspace_name()?;
            self.expect_kw("with")?;
            let properties = self.properties()?;
            return Ok(Statement::AlterKeyspace(AlterKeyspace {
                name,
                if_exists,
                properties,
            }));
        }
        if self.eat_table_kw() {
            return self.alter_table();
        }
        if self.eat_kw("type") {
            return self.alter_type();
        }
        if self.eat_kws(&["materialized", "view"]) {
            return self.alter_view();
        }
        if self.is_kw("role") || self.is_kw("user") {
            return self.alter_role();
        }
        Err(self.no_viable())
    }

    /// `DROP KEYSPACE | TABLE | INDEX | TYPE [IF EXISTS] name`.
    pub(crate) fn drop_statement(&mut self) -> Result<Statement> {
        self.expect_kw("drop")?;
        if self.eat_keyspace_kw() {
            let if_exists = self.if_exists()?;
            let name = self.keyspace_name()?;
            return Ok(Statement::DropKeyspace { name, if_exists });
        }
        if self.eat_table_kw() {
            let if_exists = self.if_exists()?;
            let name = self.qualified_name()?;
            return Ok(Statement::DropTable { name, if_exists });
        }
        if self.eat_kw("index") {
            let if_exists = self.if_exists()?;
            let name = self.qualified_name()?;
            return Ok(Statement::DropIndex { name, if_exists });
        }
        if self.eat_kw("type") {
            let if_exists = self.if_exists()?;
            let name = self.qualified_name()?;
            return Ok(Statement::DropType { name, if_exists });
        }
        if self.eat_kws(&["materialized", "view"]) {
            return self.drop_view();
        }
        if self.is_kw("role") || self.is_kw("user") {
            return self.drop_role();
        }
        if self.is_kw("function") || self.is_kw("aggregate") {
            return self.drop_function();
        }
        if self.is_kw("trigger") {
            return self.drop_trigger();
        }
        Err(self.no_viable())
    }

    /// `tableDefinition`: `'(' entry (',' entry?)* ')' [WITH tableProperty (AND ...)*]`.
    fn create_table(&mut self) -> Result<Statement> {
        let if_not_exists = self.if_not_exists()?;
        let name = self.qualified_name()?;
        let mut table = CreateTable {
            name,
            if_not_exists,
            columns: Vec::new(),
            partition_key: Vec::new(),
            clustering_key: Vec::new(),
            clustering_order: Vec::new(),
            compact_storage: false,
            properties: Vec::new(),
        };
        self.expect_punct("(")?;
        self.table_entry(&mut table)?;
        while self.eat_punct(",") {
            // cassandra-stress sends `key blob PRIMARY KEY,\n, "C0" counter`.
            if !self.is_punct(",") && !self.is_punct(")") {
                self.table_entry(&mut table)?;
            }
        }
        self.expect_punct(")")?;
        if self.eat_kw("with") {
            loop {
                self.table_property(&mut table)?;
                if !self.eat_kw("and") {
                    break;
                }
            }
        }
        Ok(Statement::CreateTable(Box::new(table)))
    }

    /// `tableColumns`: a column definition or a `PRIMARY KEY (...)` clause.
    fn table_entry(&mut self, table: &mut CreateTable) -> Result<()> {
        if self.eat_kws(&["primary", "key"]) {
            self.expect_punct("(")?;
            if self.is_punct("(") {
                table.partition_key = self.paren_idents()?;
            } else {
                table.partition_key = vec![self.ident()?];
            }
            while self.eat_punct(",") {
                table.clustering_key.push(self.ident()?);
            }
            return self.expect_punct(")");
        }
        let column = self.column_definition()?;
        table.columns.push(column);
        Ok(())
    }

    /// `ident type [STATIC] [PRIMARY KEY]`.
    fn column_definition(&mut self) -> Result<ColumnDefinition> {
        let name = self.ident()?;
        let ty = self.cql_type()?;
        let is_static = self.eat_kw("static");
        let primary_key = if self.eat_kw("primary") {
            self.expect_kw("key")?;
            true
        } else {
            false
        };
        Ok(ColumnDefinition {
            name,
            ty,
            is_static,
            primary_key,
        })
    }

    /// `tableProperty`: `COMPACT STORAGE`, `CLUSTERING ORDER BY (...)` or `name = value`.
    /// `(c [ASC | DESC], ...)` after `CLUSTERING ORDER BY`, for tables and views.
    pub(crate) fn clustering_order_list(&mut self) -> Result<Vec<(Ident, Order)>> {
        self.expect_punct("(")?;
        let mut out = Vec::new();
        loop {
            let column = self.ident()?;
            let order = if self.eat_kw("desc") {
                Order::Desc
            } else {
                self.expect_kw("asc")?;
                Order::Asc
            };
            out.push((column, order));
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct(")")?;
        Ok(out)
    }

    fn table_property(&mut self, table: &mut CreateTable) -> Result<()> {
        if self.eat_kws(&["compact", "storage"]) {
            table.compact_storage = true;
            return Ok(());
        }
        if self.eat_kws(&["clustering", "order", "by"]) {
            let order = self.clustering_order_list()?;
            table.clustering_order.extend(order);
            return Ok(());
        }
        table.properties.push(self.property()?);
        Ok(())
    }

    /// `ALTER TABLE [IF EXISTS] t (ALTER c TYPE t | ADD ... | DROP ... | RENAME ... | WITH ...)`.
    fn alter_table(&mut self) -> Result<Statement> {
        let if_exists = self.if_exists()?;
        let name = self.qualified_name()?;
        let action = if self.eat_kw("alter") {
            let column = self.cident()?;
            self.expect_kw("type")?;
            AlterTableAction::AlterType {
                column,
                ty: self.cql_type()?,
            }
        } else if self.eat_kw("add") {
            let if_not_exists = self.if_not_exists()?;
            let columns = if self.eat_punct("(") {
                let mut columns = vec![self.column_definition()?];
                while self.eat_punct(",") {
                    columns.push(self.column_definition()?);
                }
                self.expect_punct(")")?;
                columns
            } else {
                vec![self.column_definition()?]
            };
            AlterTableAction::Add {
                if_not_exists,
                columns,
            }
        } else if self.eat_kw("drop") {
            self.alter_table_drop()?
        } else if self.eat_kw("rename") {
            let if_exists = self.if_exists()?;
            AlterTableAction::Rename {
                if_exists,
                renames: self.renames()?,
            }
        } else if self.eat_kw("with") {
            AlterTableAction::With(self.properties()?)
        } else {
            return Err(self.no_viable());
        };
        Ok(Statement::AlterTable(Box::new(AlterTable {
            name,
            if_exists,
            action,
        })))
    }

    /// `DROP [IF EXISTS] (c | '(' c, ... ')') [USING TIMESTAMP n]`, after `DROP`.
    fn alter_table_drop(&mut self) -> Result<AlterTableAction> {
        let if_exists = self.if_exists()?;
        let columns = if self.is_punct("(") {
            self.paren_idents()?
        } else {
            vec![self.ident()?]
        };
        let mut timestamp = None;
        if self.eat_kw("using") {
            self.expect_kw("timestamp")?;
            let negative = self.eat_punct("-");
            let value = match self.peek() {
                TokenKind::Integer(n) => format!("{}{n}", if negative { "-" } else { "" })
                    .parse::<i64>()
                    .ok(),
                _ => return Err(self.expected("INTEGER")),
            };
            let value = value.ok_or_else(|| self.invalid("Invalid timestamp: out of range"))?;
            self.advance();
            timestamp = Some(value);
        }
        Ok(AlterTableAction::Drop {
            if_exists,
            columns,
            timestamp,
        })
    }

    /// `a TO b (AND c TO d)*`.
    fn renames(&mut self) -> Result<Vec<(Ident, Ident)>> {
        let mut out = Vec::new();
        loop {
            let from = self.ident()?;
            self.expect_kw("to")?;
            out.push((from, self.ident()?));
            if !self.eat_kw("and") {
                return Ok(out);
            }
        }
    }

    /// `CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON t (targets) [USING 'c'] [WITH ...]`.
    fn create_index(&mut self) -> Result<Statement> {
        let custom = self.eat_kw("custom");
        self.expect_kw("index")?;
        let if_not_exists = self.if_not_exists()?;
        let name = if self.is_kw("on") {
            None
        } else {
            Some(self.ident()?)
        };
        self.expect_kw("on")?;
        let table = self.qualified_name()?;
        self.expect_punct("(")?;
        let mut targets = Vec::new();
        if !self.is_punct(")") {
            targets.push(self.index_target()?);
            while self.eat_punct(",") {
                targets.push(self.index_target()?);
            }
        }
        self.expect_punct(")")?;
        let mut custom_class = None;
        if self.eat_kw("using") {
            match self.peek().clone() {
                TokenKind::String(s) => {
                    self.advance();
                    custom_class = Some(s);
                }
                _ => return Err(self.expected("STRING_LITERAL")),
            }
        }
        if custom && custom_class.is_none() {
            return Err(self.invalid("CUSTOM index requires specifying the index class"));
        }
        // Cassandra 5.0 takes `CREATE INDEX ... USING 'sai'` (or 'legacy_local_table') without
        // CUSTOM: the class picks the implementation.
        let options = if self.eat_kw("with") {
            self.index_options()?
        } else {
            Vec::new()
        };
        Ok(Statement::CreateIndex(Box::new(CreateIndex {
            name,
            table,
            targets,
            if_not_exists,
            custom_class,
            options,
        })))
    }

    /// `indexIdent`: `c`, `keys(c)`, `values(c)`, `entries(c)`, `full(c)`.
    fn index_target(&mut self) -> Result<IndexTarget> {
        let word = self.keyword_text().unwrap_or_default();
        let wrap: Option<fn(Ident) -> IndexTarget> = match word.as_str() {
            "keys" => Some(IndexTarget::Keys),
            "values" => Some(IndexTarget::Values),
            "entries" => Some(IndexTarget::Entries),
            "full" => Some(IndexTarget::Full),
            _ => None,
        };
        match wrap {
            Some(wrap) if self.is_punct_at(1, "(") => {
                self.advance();
                self.advance();
                let column = self.cident()?;
                self.expect_punct(")")?;
                Ok(wrap(column))
            }
            _ => Ok(IndexTarget::Simple(self.cident()?)),
        }
    }

    /// `WITH OPTIONS = {...}` of an index: the only property an index takes.
    fn index_options(&mut self) -> Result<Vec<(String, String)>> {
        let mut options = Vec::new();
        for property in self.properties()? {
            match (property.name.as_str(), property.value) {
                ("options", PropertyValue::Map(entries)) => {
                    options.extend(entries.into_iter().map(|(k, v)| (k, raw_text(&v))))
                }
                (name, _) => {
                    return Err(self.invalid(&format!("Unknown property '{name}'")));
                }
            }
        }
        Ok(options)
    }

    /// `CREATE TYPE [IF NOT EXISTS] name '(' field type (',' (field type)?)* ')'`.
    fn create_type(&mut self) -> Result<Statement> {
        let if_not_exists = self.if_not_exists()?;
        let name = self.type_name()?;
        self.expect_punct("(")?;
        let mut fields = vec![self.type_field()?];
        while self.eat_punct(",") {
            if !self.is_punct(",") && !self.is_punct(")") {
                fields.push(self.type_field()?);
            }
        }
        self.expect_punct(")")?;
        Ok(Statement::CreateType(CreateType {
            name,
            if_not_exists,
            fields,
        }))
    }

    fn type_field(&mut self) -> Result<(Ident, crate::statement::ast::CqlType)> {
        let field = self.ident()?;
        Ok((field, self.cql_type()?))
    }

    /// `userTypeName`: a qualified name that is not a native type.
    fn type_name(&mut self) -> Result<QualifiedName> {
        match self.cql_type()? {
            crate::statement::ast::CqlType::Udt(name) => Ok(name),
            _ => Err(self.invalid("Invalid user type name: it is a native or collection type")),
        }
    }

    /// `ALTER TYPE name (ADD field type | RENAME a TO b (AND c TO d)*)`.
    fn alter_type(&mut self) -> Result<Statement> {
        let name = self.type_name()?;
        if self.eat_kw("add") {
            let field = self.ident()?;
            let ty = self.cql_type()?;
            return Ok(Statement::AlterType(AlterType::Add { name, field, ty }));
        }
        if self.eat_kw("rename") {
            let renames = self.renames()?;
            return Ok(Statement::AlterType(AlterType::Rename { name, renames }));
        }
        Err(self.no_viable())
    }
}
