//Maya ASCII 2020 scene
//Name: self.ma
//Codeset: UTF-8
createNode transform -n "loop_grp";
file -r -ns "again" -dr 1 -rfn "againRN" -op "v=0;" -typ "mayaAscii" "self.ma";
createNode transform -n "after";
// End of self.ma
