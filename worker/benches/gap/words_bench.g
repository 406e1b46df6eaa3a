# Words for group members in GAP, on the generators and elements written by the `words` bench:
# set-up = EpimorphismFromFreeGroup plus the first PreImagesRepresentative (which builds GAP's
# stabiliser chain with words), then the rest; prints "GAPWORDS setup_ms mean max words_per_s".
G := Group(gens);;
t0 := Runtime();;
hom := EpimorphismFromFreeGroup(G : names := List([1..Length(gens)], i -> Concatenation("g", String(i))));;
w := PreImagesRepresentative(hom, elems[1]);;
setup := Runtime() - t0;;
t1 := Runtime();;
lens := List(elems, e -> Length(PreImagesRepresentative(hom, e)));;
rest := Runtime() - t1;;
Print("GAPWORDS ", setup, " ", Float(Sum(lens) / Length(lens)), " ", Maximum(lens), " ",
      Float(Length(elems) * 1000 / Maximum(rest, 1)), "\n");
QUIT;
