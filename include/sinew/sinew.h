/* sinew/sinew.h: the umbrella header. Include this one. */
#ifndef SINEW_SINEW_H
#define SINEW_SINEW_H

#include "sinew/math.h"
#include "sinew/graph.h"
#include "sinew/nodes.h"
#include "sinew/mesh.h"
#include "sinew/curve.h"
#include "sinew/skin.h"
#include "sinew/deform.h"
#include "sinew/pool.h"
#include "sinew/io.h"
#include "sinew/lang.h"
#include "sinew/cmds.h"

#define SINEW_VERSION_MAJOR 0
#define SINEW_VERSION_MINOR 1
#define SINEW_VERSION_PATCH 0

#endif
