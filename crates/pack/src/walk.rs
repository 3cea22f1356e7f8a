//! The dependency walk: breadth-first from the map's references, each file visited once,
//! followed into when it is the map's own (content folders, pakfile) and left when the game
//! has it. Breadth-first, so each file's chain of references is a shortest one.

use std::collections::{HashMap, VecDeque};

use crate::error::PackError;
use crate::model::Skins;
use crate::refs::Ref;
use crate::sources::{Location, Sources};

/// A file the walk reached.
#[derive(Debug, Clone)]
pub struct Node {
    pub path: String,
    pub location: Location,
    /// The file that named it (`None`: the map did).
    pub parent: Option<usize>,
    /// What in the referrer named it.
    pub via: String,
    /// The name it is packed under, when not its own.
    pub rename: Option<String>,
    /// Left out by an `--exclude` glob (and not followed).
    pub excluded: bool,
}

/// A reference nothing provides.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unresolved {
    pub path: String,
    /// What referred to it first, nearest first.
    pub chain: Vec<String>,
    /// How many other references to it there are.
    pub others: usize,
}

/// The walk's state.
pub struct Walk<'a, 's> {
    sources: &'a Sources<'s>,
    map: &'a str,
    exclude: &'a [String],
    model_skins: HashMap<String, Skins>,
    pub nodes: Vec<Node>,
    index: HashMap<String, usize>,
    /// Inclusion edges (from, to) between nodes, for the loop check.
    includes: Vec<(usize, usize)>,
    pub unresolved: Vec<Unresolved>,
    unresolved_index: HashMap<String, usize>,
    /// Files whose references could not be read.
    pub problems: Vec<String>,
}

impl<'a, 's> Walk<'a, 's> {
    pub fn new(
        sources: &'a Sources<'s>,
        map: &'a str,
        exclude: &'a [String],
        model_skins: HashMap<String, Skins>,
    ) -> Self {
        Walk {
            sources,
            map,
            exclude,
            model_skins,
            nodes: Vec::new(),
            index: HashMap::new(),
            includes: Vec::new(),
            unresolved: Vec::new(),
            unresolved_index: HashMap::new(),
            problems: Vec::new(),
        }
    }

    /// Walks from `roots` (references of the map itself) and checks for inclusion loops.
    pub fn run(&mut self, roots: Vec<Ref>) -> Result<(), PackError> {
        let mut queue: VecDeque<(Ref, Option<usize>)> = roots.into_iter().map(|r| (r, None)).collect();
        while let Some((r, parent)) = queue.pop_front() {
            if let Some(node) = self.visit(r, parent)? {
                queue.extend(self.follow(node)?.into_iter().map(|r| (r, Some(node))));
            }
        }
        self.check_loops()
    }

    /// The chain of references that brought a node in, nearest first.
    pub fn chain(&self, node: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = Some(node);
        while let Some(n) = at {
            let node = &self.nodes[n];
            out.push(match node.parent {
                Some(p) => format!("{} in {}", node.via, self.nodes[p].path),
                None => node.via.clone(),
            });
            at = node.parent;
        }
        out
    }

    /// Resolves one reference; the new node's index when it is reached for the first time.
    fn visit(&mut self, r: Ref, parent: Option<usize>) -> Result<Option<usize>, PackError> {
        let Some((path, location)) = self.resolve(&r, parent)? else {
            return Ok(None);
        };
        if let Some(&existing) = self.index.get(&path) {
            self.add_include(&r, parent, existing);
            return Ok(None);
        }
        let excluded = self.exclude.iter().any(|g| crate::path::glob_matches(g, &path));
        let id = self.nodes.len();
        self.index.insert(path.clone(), id);
        self.nodes.push(Node {
            path,
            location,
            parent,
            via: r.via.clone(),
            rename: r.rename.clone(),
            excluded,
        });
        self.add_include(&r, parent, id);
        Ok((!excluded).then_some(id))
    }

    /// The first candidate something has, normalised, and where it is; a missing one is told.
    fn resolve(&mut self, r: &Ref, parent: Option<usize>) -> Result<Option<(String, Location)>, PackError> {
        let mut first = None;
        for raw in &r.candidates {
            let path = crate::path::normalise(raw).ok_or_else(|| PackError::Escape {
                path: raw.clone(),
                referrer: self.referrer(&r.via, parent),
            })?;
            if let Some(at) = self.sources.locate(&path) {
                return Ok(Some((path, at)));
            }
            first.get_or_insert(path);
        }
        self.missing(first.unwrap_or_default(), r, parent);
        Ok(None)
    }

    fn add_include(&mut self, r: &Ref, parent: Option<usize>, to: usize) {
        if let (true, Some(from)) = (r.include, parent) {
            self.includes.push((from, to));
        }
    }

    /// Tells a needed file nothing has (the map's generated files are not needed: vbsp writes
    /// them).
    fn missing(&mut self, path: String, r: &Ref, parent: Option<usize>) {
        if r.optional || crate::map::is_generated(&path, self.map) {
            return;
        }
        if let Some(&i) = self.unresolved_index.get(&path) {
            self.unresolved[i].others += 1;
            return;
        }
        self.unresolved_index.insert(path.clone(), self.unresolved.len());
        let mut chain = vec![r.via.clone()];
        if let Some(p) = parent {
            chain[0] = format!("{} in {}", r.via, self.nodes[p].path);
            chain.extend(self.chain(p).into_iter().skip(1));
        }
        self.unresolved.push(Unresolved {
            path,
            chain,
            others: 0,
        });
    }

    /// How a reference's referrer is named in an error.
    fn referrer(&self, via: &str, parent: Option<usize>) -> String {
        match parent {
            Some(p) => format!("{via} in {}", self.nodes[p].path),
            None => via.to_string(),
        }
    }

    /// The references of a node the map provides (content or pakfile); none for the game's.
    fn follow(&mut self, id: usize) -> Result<Vec<Ref>, PackError> {
        let node = &self.nodes[id];
        if node.location == Location::Game {
            return Ok(Vec::new());
        }
        let Some(bytes) = self.sources.read(&node.path, &node.location)? else {
            return Ok(Vec::new());
        };
        let skins = self.model_skins.get(&node.path).cloned().unwrap_or(None);
        match crate::kinds::references(&node.path, &bytes, &skins) {
            Ok(refs) => Ok(refs),
            Err(e) => {
                self.problems.push(e.to_string());
                Ok(Vec::new())
            }
        }
    }

    /// A circle of inclusions is an error naming its files.
    fn check_loops(&self) -> Result<(), PackError> {
        let mut next: HashMap<usize, Vec<usize>> = HashMap::new();
        for &(a, b) in &self.includes {
            next.entry(a).or_default().push(b);
        }
        let mut state = vec![0u8; self.nodes.len()];
        for start in 0..self.nodes.len() {
            if let Some(cycle) = find_cycle(start, &next, &mut state) {
                let names = cycle.into_iter().map(|n| self.nodes[n].path.clone()).collect();
                return Err(PackError::Loop { cycle: names });
            }
        }
        Ok(())
    }
}

/// Depth-first search from `start` without recursion (`state`: 0 new, 1 on the path, 2 done);
/// the circle found, first node repeated at its end.
fn find_cycle(start: usize, next: &HashMap<usize, Vec<usize>>, state: &mut [u8]) -> Option<Vec<usize>> {
    if state[start] != 0 {
        return None;
    }
    let mut stack = vec![(start, 0usize)];
    state[start] = 1;
    while let Some(&mut (node, ref mut i)) = stack.last_mut() {
        let edges = next.get(&node).map_or(&[][..], Vec::as_slice);
        if let Some(&to) = edges.get(*i) {
            *i += 1;
            match state[to] {
                1 => {
                    let from = stack.iter().position(|&(n, _)| n == to).unwrap_or(0);
                    let mut cycle: Vec<usize> = stack[from..].iter().map(|&(n, _)| n).collect();
                    cycle.push(to);
                    return Some(cycle);
                }
                0 => {
                    state[to] = 1;
                    stack.push((to, 0));
                }
                _ => {}
            }
        } else {
            state[node] = 2;
            stack.pop();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_found_with_their_members() {
        let mut next = HashMap::new();
        next.insert(0, vec![1]);
        next.insert(1, vec![2, 3]);
        next.insert(3, vec![1]);
        let mut state = vec![0u8; 4];
        assert_eq!(find_cycle(0, &next, &mut state), Some(vec![1, 3, 1]));
        next.remove(&3);
        let mut state = vec![0u8; 4];
        assert_eq!(find_cycle(0, &next, &mut state), None);
    }
}
