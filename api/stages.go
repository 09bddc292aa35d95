package api

import "github.com/gin-gonic/gin"

// stages holds the stage handlers and their shared state (the lookup cache).
type stages struct{ s *Server }

func newStages(s *Server) *stages { return &stages{s: s} }

func (st *stages) register(g *gin.RouterGroup) {}
