//! Who may edit a database. Its owner (the OS user whose process holds it) always may; beside
//! him, the officers the owner names — OS users, or every member of an OS group — are kept
//! with the database and audited. Anyone else the database folder lets reach it may read and
//! look up, not edit. Who a process is comes from the operating system (the socket's peer
//! credentials), never from what it says.

use super::{Desk, DeskError, EditError, Federation};
use crate::model::Officer;
use crate::store::{self, AuditKind};

/// A process's user as the operating system gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    pub name: String,
    pub uid: u32,
    /// The names of his groups (his primary group and the others).
    pub groups: Vec<String>,
}

impl Person {
    /// The user with this uid and primary gid, with his groups.
    pub fn of(uid: u32, gid: u32) -> Self {
        let name = store::lock::user_of(nix::unistd::Uid::from_raw(uid));
        let gid = nix::unistd::Gid::from_raw(gid);
        let gids = std::ffi::CString::new(name.clone())
            .ok()
            .and_then(|c| nix::unistd::getgrouplist(&c, gid).ok())
            .unwrap_or_else(|| vec![gid]);
        let groups = gids
            .into_iter()
            .filter_map(|g| nix::unistd::Group::from_gid(g).ok().flatten())
            .map(|g| g.name)
            .collect();
        Self { name, uid, groups }
    }

    /// This process's user.
    pub fn me() -> Self {
        Self::of(
            nix::unistd::getuid().as_raw(),
            nix::unistd::getgid().as_raw(),
        )
    }

    /// Whether he is the user this process runs as: the database's owner.
    pub fn is_owner(&self) -> bool {
        self.uid == nix::unistd::getuid().as_raw()
    }
}

/// Whether `person` may edit a database whose officers are `officers`: its owner, a user
/// named, or a member of a group named.
pub fn may_edit(officers: &[Officer], person: &Person) -> bool {
    person.is_owner()
        || officers.iter().any(|o| {
            if o.group {
                person.groups.contains(&o.name)
            } else {
                o.name == person.name
            }
        })
}

/// Why `person` may not edit, and how he may: one line of the status bar.
pub fn may_not_edit(person: &Person) -> String {
    let owner = store::lock::user_of(nix::unistd::getuid());
    format!(
        "{} may look up, not edit: {owner} can `ratedesk officers add {}`",
        person.name, person.name
    )
}

impl<R: Federation> Desk<R> {
    /// Who may edit beside the owner.
    pub fn officers(&self) -> &[Officer] {
        &self.officers
    }

    /// Whether `person` may edit this database.
    pub fn may_edit(&self, person: &Person) -> bool {
        may_edit(&self.officers, person)
    }

    /// Names `officer` an editor of the database (`editor`), or no longer one, as an audited
    /// entry that changes no record; `false` when he already was (was not). Only the owner
    /// names officers: a process that serves the database runs this for no one else.
    pub fn name_officer(&mut self, officer: Officer, editor: bool) -> Result<bool, DeskError> {
        if self.is_replica() {
            return Err(EditError(
                "officers are named where the database is held: run `ratedesk officers` there"
                    .into(),
            )
            .into());
        }
        if let Some(why) = &self.stopped {
            return Err(DeskError::Stopped(why.clone()));
        }
        let mut officers = self.officers.clone();
        let held = officers.contains(&officer);
        if held == editor {
            return Ok(false);
        }
        if editor {
            officers.push(officer.clone());
            officers.sort();
        } else {
            officers.retain(|o| *o != officer);
        }
        let action = if editor {
            format!("officers: {officer} may edit")
        } else {
            format!("officers: {officer} may no longer edit")
        };
        let stored = self.commit_with(
            vec![(crate::book::Change::default(), action, AuditKind::Officers)],
            &[],
            Some(&officers),
        );
        // Past the commit point the list is stored, whatever failed after it.
        if matches!(stored, Ok(_) | Err(DeskError::AfterCommit { .. })) {
            self.officers = officers;
        }
        stored.map(|_| true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str, uid: u32, groups: &[&str]) -> Person {
        Person {
            name: name.into(),
            uid,
            groups: groups.iter().map(|g| g.to_string()).collect(),
        }
    }

    fn officer(name: &str, group: bool) -> Officer {
        Officer {
            name: name.into(),
            group,
        }
    }

    #[test]
    fn the_owner_an_officer_by_name_and_a_member_of_a_named_group_may_edit() {
        let me = Person::me();
        let other = me.uid.wrapping_add(1);
        let officers = [officer("anna", false), officer("selection", true)];
        assert!(may_edit(&[], &me), "the owner, with no officers named");
        assert!(may_edit(&officers, &person("anna", other, &[])));
        assert!(may_edit(
            &officers,
            &person("bob", other, &["users", "selection"])
        ));
        // Neither named nor in the group; a user named like the group is not its member.
        assert!(!may_edit(&officers, &person("bob", other, &["users"])));
        assert!(!may_edit(&officers, &person("selection", other, &[])));
        assert!(!may_edit(&[], &person("anna", other, &[])));
    }
}
