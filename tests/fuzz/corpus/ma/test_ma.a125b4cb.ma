//Maya ASCII 2020 scene
createNode transform -n "a";
rename "a" "b; // c