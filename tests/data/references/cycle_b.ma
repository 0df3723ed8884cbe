//Maya ASCII 2020 scene
//Name: cycle_b.ma
//Codeset: UTF-8
createNode transform -n "b_grp";
file -r -ns "a" -dr 1 -rfn "aRN" -op "v=0;" -typ "mayaAscii" "cycle_a.ma";
// End of cycle_b.ma
