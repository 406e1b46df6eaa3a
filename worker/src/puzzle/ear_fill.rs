//! Rearranging one 2-connected block along its [`BlockPlan`]: the ears are filled from the last
//! to the first, each through a *conveyor*, then the core is finished from its search table.
//!
//! # Method
//! Ear `i` is the path `a – x_1 … x_m – b` on the 2-connected part `H` of the ears before it (and
//! the core). Walking the blank `a → x_1 → … → x_m → b` shifts the ear's tokens one vertex
//! towards `a`: the token on `x_1` leaves to `a` and the token on `b` enters at `x_m`. So the ear
//! is a queue of length `m`, and inserting `y_1, …, y_m` (the tokens the target puts on
//! `x_1, …, x_m`) fills it. Before each insertion the token is brought to `b` and the blank to `a`
//! inside `H` only: a token moves one step along a shortest path by bringing the blank in front
//! of it around it, which `H` allows because it stays connected without any one vertex.
//!
//! An insertion needs its token in `H`. If some `y_j` starts in the ear at `x_k` with `k >= j` it
//! would still be queued when its turn came, so first `m` *filler* tokens are inserted, which
//! empties the ear of its original tokens: the `i`-th filler is any token of `H` other than
//! `y_1, …, y_i` (a `y_t` with `t > i` leaves the queue before its own turn). `H` holds at least
//! `m + 1` tokens when it has at least `m + 2` vertices, so a filler always exists then; otherwise
//! the fill stops with a typed error and the caller rearranges the block by a word in its lassos
//! instead ([`lasso_words`](super::lasso_words)). Ears after `i` are never touched again, so each ear
//! stays filled.
//!
//! Fewer insertions when the ear is partly right already: after `k` insertions the ear holds its
//! last `m - k` tokens of now followed by the `k` inserted, so if its last `m - k` vertices hold
//! `y_1, …, y_{m-k}` only `y_{m-k+1}, …, y_m` are inserted (none if the ear is filled already).
//! An ear read backwards (`b` and `a` exchanged) is an ear too; in blocks with distance fields
//! ([`route_fields`](super::route_fields): blocks of up to about 64 vertices, more when their ears
//! are long) the end its tokens
//! are nearer is chosen, and each token takes the shortest path to `b` that costs the fewest
//! moves in all: the blank's way round the token at each step, and on to `a` at the end, are read
//! off the fields (dynamic programming over the path's layers). Larger blocks take any shortest
//! path and route the blank by a breadth-first search that stops at its goal.
//!
//! # Complexity
//! Each insertion moves a token along a shortest path in `H`; each step brings the blank around
//! the token by a breadth-first search that stops at its goal (a few vertices on grids), or by
//! reading a distance field searched once per block for all targets. In the worst case
//! `O(n_B · d · (n_B + m_B))` time for a block of `n_B` vertices and diameter `d`, and
//! `O(n_B · d · n_B)` moves; Kornhauser, Miller and Spirakis (FOCS 1984) show `O(n³)` moves always
//! suffice.
//!
//! # Reference
//! The conveyor is the rotation along a cycle used throughout Wilson (1974) and Kornhauser–
//! Miller–Spirakis (1984); filling a region piece by piece while keeping the rest 2-connected is
//! how the (n²−1)-puzzle is solved by hand (Ratner & Warmuth, J. Symbolic Comput. 10 (1990)).

use super::block_plan::{BlockPlan, Ear};
use super::moves::{MovesFail, Walker};
use super::route_fields::{RouteFields, UNREACHED};

/// A block seen from the global puzzle: local vertex `v` is global `verts[v]`; the entry is the
/// last local vertex.
pub(crate) struct BlockView<'a> {
    pub verts: &'a [u32],
    pub adj: &'a [Vec<u32>],
    pub plan: &'a BlockPlan,
    /// Local index of each global non-entry vertex of this block.
    pub local_of: &'a [u32],
    /// The normalised target: the token wanted on each global vertex.
    pub want: &'a [u32],
}

impl BlockView<'_> {
    fn entry(&self) -> u32 {
        self.verts.len() as u32 - 1
    }

    fn local(&self, global: u32) -> u32 {
        if global == self.verts[self.verts.len() - 1] {
            self.entry()
        } else {
            self.local_of[global as usize]
        }
    }
}

/// Breadth-first scratch sized to the largest block, reused across blocks and targets.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    stamp: Vec<u32>,
    from: Vec<u32>,
    queue: Vec<u32>,
    round: u32,
    /// `mark[token] = j + 1` while token is `y_j` of the ear being filled.
    pub mark: Vec<u32>,
    /// The local vertex each token of the block being filled is wanted on.
    tok_local: Vec<u32>,
    /// The tokens wanted on the ear being filled.
    ys: Vec<u32>,
    /// The token's route: the distances to its goal, and the states of the dynamic programme
    /// (see [`route_token_by_fields`]) with where each layer starts.
    toward: Vec<u8>,
    states: Vec<RouteState>,
    layer_start: Vec<usize>,
    steps: Vec<u32>,
}

/// A state of the token's route: the blank's vertex, the token's, the moves so far and the state
/// it came from.
#[derive(Debug, Clone, Copy)]
struct RouteState {
    blank: u32,
    token: u32,
    moves: u32,
    from: u32,
}

impl Scratch {
    pub(crate) fn new(block_len: usize, n: usize) -> Self {
        Self {
            stamp: vec![0; block_len],
            from: vec![0; block_len],
            queue: Vec::new(),
            round: 0,
            mark: vec![0; n],
            tok_local: vec![0; n],
            ys: Vec::new(),
            toward: Vec::new(),
            states: Vec::new(),
            layer_start: Vec::new(),
            steps: Vec::new(),
        }
    }

    fn next_round(&mut self) -> u32 {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.stamp.fill(0);
            self.round = 1;
        }
        self.round
    }
}

/// Rearranges the block: on return its non-entry vertices hold the wanted tokens and the blank is
/// back on the entry. `fill` must be called with the blank on the entry.
///
/// # Errors
/// [`MovesFail::Parity`] if the core cannot finish (the caller then retries with the plan's odd
/// walk first), [`MovesFail::Unsupported`] if an ear is too long for a filler, or the walker's
/// errors (cap, cancellation).
pub(crate) fn fill(
    w: &mut Walker<'_>,
    view: &BlockView<'_>,
    s: &mut Scratch,
    mut routes: Option<&mut RouteFields>,
) -> Result<(), MovesFail> {
    let plan = view.plan;
    let entry = view.entry();
    // The block's goal with the blank moved from the entry to the core's goal vertex along the
    // exit path read backwards; the exit path walked last brings it back.
    let mut goal: Vec<u32> = (0..view.verts.len() as u32)
        .map(|v| {
            if v == entry {
                0
            } else {
                view.want[view.verts[v as usize] as usize]
            }
        })
        .collect();
    let mut back: Vec<u32> = vec![entry];
    back.extend(plan.exit.iter().rev().skip(1));
    back.push(plan.core[plan.table.goal_blank()]);
    if plan.exit.is_empty() {
        back.truncate(1);
    }
    for i in 0..back.len() - 1 {
        goal[back[i] as usize] = goal[back[i + 1] as usize];
    }
    goal[back[back.len() - 1] as usize] = 0;
    for (v, &t) in goal.iter().enumerate() {
        s.tok_local[t as usize] = v as u32;
    }
    for (idx, plan_ear) in plan.ears.iter().enumerate().rev() {
        let lvl = idx as u32 + 1;
        let m = plan_ear.interior.len();
        // The blank into H: if it is on this ear, walk it back to `a`.
        let bl = view.local(w.blank());
        if plan.level[bl as usize] == lvl {
            let k = plan_ear.interior.iter().position(|&x| x == bl).unwrap_or(0);
            for j in (0..k).rev() {
                w.step(view.verts[plan_ear.interior[j] as usize])?;
            }
            w.step(view.verts[plan_ear.a as usize])?;
        }
        // The ear may be filled from either end; with distance fields the cheaper one is
        // chosen, estimated from the insertions it needs and the tokens' distances to its `b`.
        let mut ear = plan_ear;
        let mut need = insertions(w, view, ear, &goal, lvl);
        if let Some(routes) = routes.as_deref_mut() {
            let flipped = &plan.ears_reversed[idx];
            let need_flipped = insertions(w, view, flipped, &goal, lvl);
            let cost = estimate(w, view, routes, ear, lvl, &goal, need);
            if estimate(w, view, routes, flipped, lvl, &goal, need_flipped) < cost {
                ear = flipped;
                need = need_flipped;
            }
        }
        let mut ys = std::mem::take(&mut s.ys);
        ys.clear();
        ys.extend(ear.interior.iter().map(|&x| goal[x as usize]));
        for (j, &y) in ys.iter().enumerate() {
            s.mark[y as usize] = j as u32 + 1;
        }
        let ear_index = |w: &Walker<'_>, t: u32| -> Option<usize> {
            let v = view.local(w.pos(t));
            ear.interior.iter().position(|&x| x == v)
        };
        let result = (|| {
            let inserted = match need {
                Insertions::Last(k) => &ys[m - k..],
                Insertions::AfterFillers => {
                    for i in 0..m {
                        let f = filler(w, view, s, ear.b, lvl, i)?;
                        insert(w, view, s, routes.as_deref_mut(), ear, lvl, f)?;
                    }
                    &ys[..]
                }
            };
            for &y in inserted {
                if ear_index(w, y).is_some() {
                    return Err(MovesFail::Inconsistent(
                        "a token to insert is still in its ear".into(),
                    ));
                }
                insert(w, view, s, routes.as_deref_mut(), ear, lvl, y)?;
            }
            Ok(())
        })();
        for &y in &ys {
            s.mark[y as usize] = 0;
        }
        let filled = ear
            .interior
            .iter()
            .zip(&ys)
            .all(|(&x, &y)| w.token_at(view.verts[x as usize]) == y);
        s.ys = ys;
        result?;
        if !filled {
            return Err(MovesFail::Inconsistent("an ear is not filled".into()));
        }
    }
    // The core, from its table.
    let goal_label = plan.table.goal_blank() as u8;
    let labels: Vec<u8> = plan
        .core
        .iter()
        .map(|&v| {
            let t = w.token_at(view.verts[v as usize]);
            if t == 0 {
                Ok(goal_label)
            } else {
                let target = s.tok_local[t as usize];
                match plan.core_index.get(target as usize) {
                    Some(&i) if i != u32::MAX => Ok(i as u8),
                    _ => Err(MovesFail::Inconsistent(
                        "a core token is wanted outside the core".into(),
                    )),
                }
            }
        })
        .collect::<Result<_, _>>()?;
    let walk = plan.table.walk(&labels).ok_or(MovesFail::Parity)?;
    for c in walk {
        w.step(view.verts[plan.core[c as usize] as usize])?;
    }
    for &v in &plan.exit {
        w.step(view.verts[v as usize])?;
    }
    Ok(())
}

/// What filling an ear takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Insertions {
    /// Only the last `k` wanted tokens: the ear's last `m - k` vertices already hold the first
    /// `m - k` wanted tokens, which `k` insertions shift into place.
    Last(usize),
    /// A wanted token would still be queued in the ear at its turn: `m` fillers, then all.
    AfterFillers,
}

/// The fewest insertions that fill `ear` (blank off the ear). After `k` insertions of
/// `z_1, …, z_k` the ear holds `c_{k+1}, …, c_m, z_1, …, z_k` (`c` its tokens now), so `k` works
/// when `c_{k+1..m}` are the first wanted tokens and each inserted `z_t` sitting on `x_i` now
/// has left by its turn (`i < t`).
fn insertions(
    w: &Walker<'_>,
    view: &BlockView<'_>,
    ear: &Ear,
    goal: &[u32],
    lvl: u32,
) -> Insertions {
    let m = ear.interior.len();
    let here = |i: usize| w.token_at(view.verts[ear.interior[i] as usize]);
    let wanted = |i: usize| goal[ear.interior[i] as usize];
    // Where token `y` is on the ear (0-based), if it is.
    let on_ear = |y: u32| {
        let v = view.local(w.pos(y));
        if view.plan.level[v as usize] == lvl {
            ear.interior.iter().position(|&x| x == v)
        } else {
            None
        }
    };
    for k in 0..=m {
        if !(k..m).all(|i| here(i) == wanted(i - k)) {
            continue;
        }
        let in_time = (1..=k).all(|t| on_ear(wanted(m - k + t - 1)).is_none_or(|i| i + 1 < t));
        if in_time {
            return Insertions::Last(k);
        }
    }
    Insertions::AfterFillers
}

/// A rough count of the moves filling `ear` takes: per insertion about four moves per step of
/// its token to `b` (the blank going round it) and the walk along the ear; fillers as tokens
/// next to `b`.
fn estimate(
    w: &Walker<'_>,
    view: &BlockView<'_>,
    routes: &mut RouteFields,
    ear: &Ear,
    lvl: u32,
    goal: &[u32],
    need: Insertions,
) -> u64 {
    let m = ear.interior.len();
    let field = routes.field(view.adj, &view.plan.level, lvl, None, ear.b);
    let (k, fillers) = match need {
        Insertions::Last(k) => (k, 0),
        Insertions::AfterFillers => (m, m),
    };
    let walk = m as u64 + 3;
    let tokens: u64 = ear.interior[m - k..]
        .iter()
        .map(|&x| {
            let v = view.local(w.pos(goal[x as usize])) as usize;
            let d = match field[v] {
                UNREACHED => u64::from(field[ear.a as usize]) + m as u64,
                d => u64::from(d),
            };
            4 * d + walk
        })
        .sum();
    tokens + fillers as u64 * (8 + walk)
}

/// Inserts token `t` (in H) into the ear: `t` to `b`, the blank to `a` avoiding `b`, then the
/// blank along the ear to `b`.
fn insert(
    w: &mut Walker<'_>,
    view: &BlockView<'_>,
    s: &mut Scratch,
    routes: Option<&mut RouteFields>,
    ear: &Ear,
    lvl: u32,
    t: u32,
) -> Result<(), MovesFail> {
    if let Some(routes) = routes {
        route_token_by_fields(w, view, s, routes, t, ear, lvl)?;
    } else {
        route_token(w, view, s, t, ear.b, lvl)?;
        route_blank(w, view, s, ear.a, Some(ear.b), lvl)?;
    }
    for &x in &ear.interior {
        w.step(view.verts[x as usize])?;
    }
    w.step(view.verts[ear.b as usize])?;
    Ok(())
}

/// The `i`-th filler (0-based): the token nearest `b` in H that is not `y_0..=y_i`, preferring
/// tokens the ear does not want.
fn filler(
    w: &Walker<'_>,
    view: &BlockView<'_>,
    s: &mut Scratch,
    b: u32,
    lvl: u32,
    i: usize,
) -> Result<u32, MovesFail> {
    let level = &view.plan.level;
    let round = s.next_round();
    s.queue.clear();
    s.queue.push(b);
    s.stamp[b as usize] = round;
    let mut head = 0;
    let mut fallback = None;
    while head < s.queue.len() {
        let v = s.queue[head];
        head += 1;
        let t = w.token_at(view.verts[v as usize]);
        if t != 0 {
            let j = s.mark[t as usize];
            if j == 0 {
                return Ok(t);
            }
            if j as usize > i + 1 && fallback.is_none() {
                fallback = Some(t);
            }
        }
        for &u in &view.adj[v as usize] {
            if level[u as usize] < lvl && s.stamp[u as usize] != round {
                s.stamp[u as usize] = round;
                s.queue.push(u);
            }
        }
    }
    fallback.ok_or(MovesFail::Unsupported(format!(
        "an ear of {} vertices hangs on a part with too few tokens to cycle through it",
        view.plan.ears[lvl as usize - 1].interior.len()
    )))
}

/// Shortest path (local vertices, `from` first) inside `level < lvl` avoiding `avoid`.
fn path(
    view: &BlockView<'_>,
    s: &mut Scratch,
    from: u32,
    to: u32,
    avoid: Option<u32>,
    lvl: u32,
) -> Result<Vec<u32>, MovesFail> {
    let level = &view.plan.level;
    let round = s.next_round();
    s.queue.clear();
    s.queue.push(from);
    s.stamp[from as usize] = round;
    if let Some(a) = avoid {
        s.stamp[a as usize] = round;
    }
    let mut head = 0;
    while head < s.queue.len() {
        let v = s.queue[head];
        head += 1;
        if v == to {
            let mut p = vec![to];
            let mut c = to;
            while c != from {
                c = s.from[c as usize];
                p.push(c);
            }
            p.reverse();
            return Ok(p);
        }
        for &u in &view.adj[v as usize] {
            if level[u as usize] < lvl && s.stamp[u as usize] != round {
                s.stamp[u as usize] = round;
                s.from[u as usize] = v;
                s.queue.push(u);
            }
        }
    }
    Err(MovesFail::Inconsistent(
        "no path inside a 2-connected part".into(),
    ))
}

/// Walks the blank to local `to` inside `level < lvl`, never onto `avoid`.
fn route_blank(
    w: &mut Walker<'_>,
    view: &BlockView<'_>,
    s: &mut Scratch,
    to: u32,
    avoid: Option<u32>,
    lvl: u32,
) -> Result<(), MovesFail> {
    let from = view.local(w.blank());
    if from == to {
        return Ok(());
    }
    for v in path(view, s, from, to, avoid, lvl)?.into_iter().skip(1) {
        w.step(view.verts[v as usize])?;
    }
    Ok(())
}

/// Moves token `t` to local `to` inside `level < lvl`: along a shortest path, each step by
/// bringing the blank onto the next vertex around the token, then stepping onto the token.
fn route_token(
    w: &mut Walker<'_>,
    view: &BlockView<'_>,
    s: &mut Scratch,
    t: u32,
    to: u32,
    lvl: u32,
) -> Result<(), MovesFail> {
    let mut cur = view.local(w.pos(t));
    if cur == to {
        return Ok(());
    }
    let route = path(view, s, cur, to, None, lvl)?;
    for &q in &route[1..] {
        route_blank(w, view, s, q, Some(cur), lvl)?;
        w.step(view.verts[cur as usize])?;
        cur = q;
    }
    Ok(())
}

/// Walks the blank to local `to` inside `level < lvl`, never onto `avoid`, down the distance
/// field of that question.
fn route_blank_by_field(
    w: &mut Walker<'_>,
    view: &BlockView<'_>,
    routes: &mut RouteFields,
    to: u32,
    avoid: Option<u32>,
    lvl: u32,
) -> Result<(), MovesFail> {
    let mut v = view.local(w.blank());
    if v == to {
        return Ok(());
    }
    let field = routes.field(view.adj, &view.plan.level, lvl, avoid, to);
    if field[v as usize] == UNREACHED {
        return Err(MovesFail::Inconsistent(
            "no path inside a 2-connected part".into(),
        ));
    }
    while v != to {
        let d = field[v as usize] - 1;
        let next = view.adj[v as usize]
            .iter()
            .copied()
            .find(|&u| field[u as usize] == d)
            .ok_or_else(|| MovesFail::Inconsistent("a distance field without a descent".into()))?;
        w.step(view.verts[next as usize])?;
        v = next;
    }
    Ok(())
}

/// Moves token `t` to the ear's `b` (`to`) inside `level < lvl` along a shortest path, each step
/// by bringing the blank onto the next vertex around the token, then stepping onto the token;
/// then the blank to the ear's `a` (`then`) without crossing `to`.
///
/// Of the shortest paths the one with the fewest moves in all is taken: after a step the blank
/// sits where the token was, so a state is the token's vertex and the one it came from, a step
/// from `(p, c)` to `(c, q)` costs the blank's distance from `p` to `q` avoiding `c` plus one,
/// and the states form layers by the distance to `to` (dynamic programming over the layers).
fn route_token_by_fields(
    w: &mut Walker<'_>,
    view: &BlockView<'_>,
    s: &mut Scratch,
    routes: &mut RouteFields,
    t: u32,
    ear: &Ear,
    lvl: u32,
) -> Result<(), MovesFail> {
    let (to, then) = (ear.b, ear.a);
    let level = &view.plan.level;
    let start = view.local(w.pos(t));
    if start != to {
        s.toward.clear();
        s.toward
            .extend_from_slice(routes.field(view.adj, level, lvl, None, to));
        let toward = &s.toward;
        if toward[start as usize] == UNREACHED {
            return Err(MovesFail::Inconsistent(
                "no path inside a 2-connected part".into(),
            ));
        }
        // Layer by layer; the first state has the blank wherever it is.
        let states = &mut s.states;
        let layer_start = &mut s.layer_start;
        states.clear();
        layer_start.clear();
        layer_start.push(0);
        states.push(RouteState {
            blank: view.local(w.blank()),
            token: start,
            moves: 0,
            from: 0,
        });
        for d in (0..toward[start as usize]).rev() {
            let (lo, hi) = (layer_start[layer_start.len() - 1], states.len());
            layer_start.push(hi);
            for i in lo..hi {
                let RouteState {
                    blank: p,
                    token: c,
                    moves,
                    ..
                } = states[i];
                for &q in &view.adj[c as usize] {
                    if toward[q as usize] != d || level[q as usize] >= lvl {
                        continue;
                    }
                    let around = routes.field(view.adj, level, lvl, Some(c), q)[p as usize];
                    if around == UNREACHED {
                        continue;
                    }
                    let next = RouteState {
                        blank: c,
                        token: q,
                        moves: moves + u32::from(around) + 1,
                        from: i as u32,
                    };
                    match states[hi..]
                        .iter_mut()
                        .find(|x| x.blank == c && x.token == q)
                    {
                        Some(x) if x.moves <= next.moves => {}
                        Some(x) => *x = next,
                        None => states.push(next),
                    }
                }
            }
            if states.len() == hi {
                return Err(MovesFail::Inconsistent(
                    "a distance field without a descent".into(),
                ));
            }
        }
        // The last layer has the token on `to`; add the blank's way on to `then`.
        let lo = layer_start[layer_start.len() - 1];
        let mut best = (u32::MAX, lo);
        for (i, x) in states.iter().enumerate().skip(lo) {
            let after =
                u32::from(routes.field(view.adj, level, lvl, Some(to), then)[x.blank as usize]);
            if x.moves + after < best.0 {
                best = (x.moves + after, i);
            }
        }
        let steps = &mut s.steps;
        steps.clear();
        let mut i = best.1;
        while i != 0 {
            steps.push(states[i].token);
            i = states[i].from as usize;
        }
        let mut cur = start;
        for &q in steps.iter().rev() {
            route_blank_by_field(w, view, routes, q, Some(cur), lvl)?;
            w.step(view.verts[cur as usize])?;
            cur = q;
        }
    }
    route_blank_by_field(w, view, routes, then, Some(to), lvl)?;
    Ok(())
}
