createNode transform -n "src";
createNode someNode -n "p";
connectAttr "src.tx" "p.tg[0].ts";
connectAttr "src.ty" "p.other[0].ts";
connectAttr "src.tz" "p.tg[0].tt";
