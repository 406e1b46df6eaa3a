# GAP side of worker/benches/group.rs. The bench binary reads a generated case file (which sets
# `casename`, `mode`, `gens` and, for membership, `members` and `others`) and then this script;
# it prints one line `GAPRESULT <ms> <what>` with GAP's own Runtime() (CPU milliseconds).
#
# By hand:  gap -q -o 8g <CASE>.g worker/benches/gap/group_bench.g   (then type QUIT;)
if mode = "size" then
  # A fresh group object each time (Size is cached on the object). Runtime() counts whole
  # milliseconds, so a run under 100 ms is repeated 20 times and averaged.
  t := Runtime();
  s := Size(Group(gens));
  best := Runtime() - t;
  if best < 100 then
    reps := 20;
    t := Runtime();
    for r in [1 .. reps] do
      s := Size(Group(gens));
    od;
    best := Float((Runtime() - t) / reps);
  fi;
  digits := Length(String(s));
  if digits > 24 then
    Print("GAPRESULT ", best, " order with ", digits, " digits\n");
  else
    Print("GAPRESULT ", best, " order ", s, "\n");
  fi;
elif mode = "membership" then
  G := Group(gens);
  Size(G);
  t := Runtime();
  ok := ForAll(members, x -> x in G);
  t1 := Runtime() - t;
  t := Runtime();
  no := Number(others, x -> x in G);
  t2 := Runtime() - t;
  Print("GAPRESULT ", t1, " (", Length(members), " members) members ",
        Int(Length(members) * 1000 / Maximum(t1, 1)), "/s, non-members ",
        Int(Length(others) * 1000 / Maximum(t2, 1)), "/s, all members found: ", ok, "\n");
fi;
