# GAP side of worker/benches/gap_corpus.rs. The bench writes a data file setting `corpus` (a list
# of generator lists, the corpus groups in the bench's order) and `runs`, then reads this script:
# for each group it prints `GAPTIME <position> <nanoseconds>`, the minimum over `runs` wall-clock
# runs of `Size(Group(gens))` (a fresh group object each run: `Size` is cached on the object),
# preceded by GAP's natural-giant tests, which `Size` does not call by itself (without them a
# relabelled Alt(1,710) takes GAP minutes).
#
# By hand:  gap -q -o 8g <DATA>.g worker/benches/gap/gap_corpus_bench.g
for k in [1 .. Length(corpus)] do
  best := infinity;
  for r in [1 .. runs] do
    t := NanosecondsSinceEpoch();
    G := Group(corpus[k], ());
    if not IsNaturalSymmetricGroup(G) then
      IsNaturalAlternatingGroup(G);
    fi;
    s := Size(G);
    t := NanosecondsSinceEpoch() - t;
    if t < best then
      best := t;
    fi;
  od;
  Print("GAPTIME ", k, " ", best, "\n");
od;
QUIT;
