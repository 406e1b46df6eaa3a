# Generator of the GAP-library corpus (worker/tests/gap_corpus/, worker/benches/gap_corpus.rs).
#
# The corpus: every primitive group of degree 5..120 (`PrimitiveGroup(d, i)`), a seeded uniform
# sample of 300 of the primitive groups of degree 121..2,500, a seeded sample of transitive groups of
# degree 8..30 (`TransitiveGroup(d, i)`: 21 per degree, every group of the degrees that have fewer;
# 407 in all), and named large-base groups (Alt(m), Sym(m) on 2-sets, PSL(10, 2) on 1,023 points,
# Alt(30).2^2 in product action on 900 points). Each group is relabelled by a random permutation
# and given by its library generators plus two random elements (products of 40 random
# generators); GAP's `Size` is its order, and three membership candidates (a random member, that
# member times a random transposition, a random permutation) carry GAP's `in` as the expected
# answer.
#
# Every group has its own seed (BASE_SEED * 10^9 + library * 10^8 + degree * 10^4 + index; named
# groups use library 3 and their position), so any one group can be rebuilt alone.
#
# Usage (the caller first reads a file setting `corpus_dir`, and optionally `parts` and `full_dir`):
#   echo 'corpus_dir := "worker/tests/gap_corpus";;' > /tmp/dirs.g
#   gap -q -o 8g /tmp/dirs.g worker/benches/gap/corpus.g
# writes, for each part of `parts` (default all four: "small", "transitive", "large", "named"),
# the list of its groups, PART.list (library, degree, index, seed, GAP's order and memberships,
# one line per group), and its generator file: primitive_small.txt, transitive.txt,
# primitive_large_sample.txt (every 10th sampled group of degree <= 1,500), named.txt, into
# `corpus_dir`. If `full_dir` is bound, the "large" part also writes primitive_large.txt (all 300
# sampled groups of degree 121..2,500, several MB) there: the bench generates it at bench time.
LoadPackage("primgrp");;
LoadPackage("transgrp");;
BASE_SEED := 18;;
LARGE_SAMPLE := 300;;
TRANSITIVE_PER_DEGREE := 21;;
# Every LARGE_COMMIT_EVERY-th sampled large group (of degree <= 1,500) is committed.
LARGE_COMMIT_EVERY := 10;;

OpenOut := function(dir, name)
  local out;
  out := OutputTextFile(Concatenation(dir, "/", name), false);
  SetPrintFormattingStatus(out, false);
  return out;
end;;

LibraryName := ["primitive", "transitive", "named"];;

# A product of WORD_LENGTH generators drawn by `rs` (a random member without a stabiliser chain:
# GAP's `Random` on a relabelled giant of degree 1,710 builds a chain with 1,708 base points).
WORD_LENGTH := 40;;
RandomWord := function(rs, gens)
  return Product(List([1 .. WORD_LENGTH], j -> Random(rs, gens)));
end;;

# Writes one group: header line, `d k q`, generators, candidates. Returns the list line.
WriteGroup := function(outs, lib, d, i, seed, G, label)
  local rs, pi, gens, H, m, a, b, cands, ins, n, out, line;
  rs := RandomSource(IsMersenneTwister, seed);
  pi := Random(rs, SymmetricGroup(d));
  gens := List(GeneratorsOfGroup(G), g -> g ^ pi);
  Append(gens, [RandomWord(rs, gens), RandomWord(rs, gens)]);
  H := Group(gens, ());
  # GAP's `Size` does not look for a natural giant by itself: without these, a relabelled Alt(1,710)
  # takes GAP minutes (a stabiliser chain with 1,708 base points).
  if not IsNaturalSymmetricGroup(H) then
    IsNaturalAlternatingGroup(H);
  fi;
  n := Size(H);
  m := RandomWord(rs, gens);
  a := Random(rs, [1 .. d]);
  b := Random(rs, Difference([1 .. d], [a]));
  cands := [m, m * (a, b), Random(rs, SymmetricGroup(d))];
  ins := List(cands, c -> c in H);
  line := Concatenation(LibraryName[lib], " ", String(d), " ", String(i), " seed ",
                        String(seed), " order ", String(n), " members ",
                        JoinStringsWithSeparator(List(ins, function(x) if x then return "1"; else return "0"; fi; end), " "),
                        " ", label);
  for out in outs do
    AppendTo(out, "# ", line, "\n", d, " ", Length(gens), " ", Length(cands), "\n");
    for a in gens do AppendTo(out, String(a), "\n"); od;
    for a in cands do AppendTo(out, String(a), "\n"); od;
  od;
  return line;
end;;

Seed := function(lib, d, i)
  return BASE_SEED * 10^9 + lib * 10^8 + d * 10^4 + i;
end;;

if not IsBound(parts) then
  parts := ["small", "transitive", "large", "named"];
fi;

OpenList := function(part)
  local out;
  out := OpenOut(corpus_dir, Concatenation(part, ".list"));
  AppendTo(out, "# GAP-library corpus, part ", part, ": library degree index seed order members",
           " (GAP 4.12.1 `Size`, `in`), by worker/benches/gap/corpus.g, BASE_SEED ", BASE_SEED, "\n");
  return out;
end;;

# 1. Every primitive group of degree 5..120.
if "small" in parts then
  index := OpenList("small");
  out := OpenOut(corpus_dir, "primitive_small.txt");
  for d in [5 .. 120] do
    for i in [1 .. NrPrimitiveGroups(d)] do
      AppendTo(index, WriteGroup([out], 1, d, i, Seed(1, d, i), PrimitiveGroup(d, i), ""), "\n");
    od;
  od;
  CloseStream(out);
  CloseStream(index);
fi;

# 2. Transitive groups of degree 8..30, TRANSITIVE_PER_DEGREE a degree (all where fewer).
if "transitive" in parts then
  rs := RandomSource(IsMersenneTwister, BASE_SEED);
  index := OpenList("transitive");
  out := OpenOut(corpus_dir, "transitive.txt");
  for d in [8 .. 30] do
    n := NrTransitiveGroups(d);
    if n <= TRANSITIVE_PER_DEGREE then
      chosen := [1 .. n];
    else
      chosen := [];
      while Length(chosen) < TRANSITIVE_PER_DEGREE do
        AddSet(chosen, Random(rs, [1 .. n]));
      od;
    fi;
    for i in chosen do
      AppendTo(index, WriteGroup([out], 2, d, i, Seed(2, d, i), TransitiveGroup(d, i), ""), "\n");
    od;
  od;
  CloseStream(out);
  CloseStream(index);
fi;

# 3. A uniform sample of LARGE_SAMPLE primitive groups of degree 121..2,500 (in the order drawn).
if "large" in parts then
  rs := RandomSource(IsMersenneTwister, BASE_SEED + 1);
  pairs := Concatenation(List([121 .. 2500], d -> List([1 .. NrPrimitiveGroups(d)], i -> [d, i])));
  sample := [];
  while Length(sample) < LARGE_SAMPLE do
    p := Random(rs, pairs);
    if not p in sample then
      Add(sample, p);
    fi;
  od;
  index := OpenList("large");
  out := OpenOut(corpus_dir, "primitive_large_sample.txt");
  if IsBound(full_dir) then
    full := [OpenOut(full_dir, "primitive_large.txt")];
  else
    full := [];
  fi;
  for k in [1 .. Length(sample)] do
    d := sample[k][1];
    i := sample[k][2];
    outs := ShallowCopy(full);
    if k mod LARGE_COMMIT_EVERY = 0 and d <= 1500 then
      Add(outs, out);
    fi;
    AppendTo(index, WriteGroup(outs, 1, d, i, Seed(1, d, i), PrimitiveGroup(d, i), ""), "\n");
  od;
  CloseStream(out);
  for o in full do CloseStream(o); od;
  CloseStream(index);
fi;

# 4. Named large-base groups: Alt(m) on 2-sets (m = 20..66), Sym(66) on 2-sets, PSL(10, 2) on the
# 1,023 points of its projective space, and (Alt(30) x Alt(30)).2^2 in product action on 900
# points (inside Sym(30) wr 2: both factors, an odd-odd pair, the swap).
if "named" in parts then
  OnTwoSets := function(m, G)
    return Action(G, Combinations([1 .. m], 2), OnSets);
  end;
  named := [];
  for m in [20, 30, 40, 50, 66] do
    Add(named, [Concatenation("Alt(", String(m), ")-on-2-sets"), OnTwoSets(m, AlternatingGroup(m))]);
  od;
  Add(named, ["Sym(66)-on-2-sets", OnTwoSets(66, SymmetricGroup(66))]);
  Add(named, ["PSL(10,2)-on-points",
              Action(SL(10, 2), Filtered(GF(2)^10, v -> not IsZero(v)), OnRight)]);
  W := WreathProductProductAction(SymmetricGroup(30), Group((1, 2)));
  emb1 := Embedding(W, 1); emb2 := Embedding(W, 2); emb3 := Embedding(W, 3);
  A := Group(Concatenation(
    List(GeneratorsOfGroup(AlternatingGroup(30)), g -> Image(emb1, g)),
    List(GeneratorsOfGroup(AlternatingGroup(30)), g -> Image(emb2, g)),
    [Image(emb1, (1, 2)) * Image(emb2, (1, 2)), Image(emb3, (1, 2))]));
  Add(named, ["Alt(30).2^2-product-action", A]);
  index := OpenList("named");
  out := OpenOut(corpus_dir, "named.txt");
  for k in [1 .. Length(named)] do
    G := named[k][2];
    d := LargestMovedPoint(G);
    AppendTo(index, WriteGroup([out], 3, d, k, Seed(3, d, k), G, named[k][1]), "\n");
  od;
  CloseStream(out);
  CloseStream(index);
fi;
QUIT;
