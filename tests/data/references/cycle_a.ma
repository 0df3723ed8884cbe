//Maya ASCII 2020 scene
//Name: cycle_a.ma
//Codeset: UTF-8
file -r -ns "b" -dr 1 -rfn "bRN" -op "v=0;" -typ "mayaAscii" "cycle_b.ma";
createNode transform -n "a_grp";
// End of cycle_a.ma
