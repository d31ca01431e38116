package core

import (
	"errors"

	"github.com/tsstore/tsstore/core/internal/catalog"
)

// Entity associations (docs/format.md §9.3 supplemental_attribute_associations, §9.4
// parent_child_associations). Both tables are independent of the time series and of each
// other: no foreign keys, no cascade. Removing a series leaves them untouched and the other
// way round. A read-only open of a store written before they existed reads them as empty.

// SupplementalAssociation attaches a supplemental attribute to a component. Identity is
// (ComponentID, AttributeID); the type names are labels for filtering.
type SupplementalAssociation struct {
	ComponentID   int64
	ComponentType string
	AttributeID   int64
	AttributeType string
}

// SupplementalFilter selects supplemental associations: a nil list matches everything, an
// empty list nothing; type names are concrete type names.
type SupplementalFilter struct {
	ComponentIDs   []int64
	AttributeIDs   []int64
	ComponentTypes []string
	AttributeTypes []string
}

// edgeQuery is a filter translated for the catalog, or why it could not be.
type edgeQuery struct {
	f   catalog.EdgeFilter
	err error
}

func (f SupplementalFilter) edges() edgeQuery {
	err := validateNames(ArgAType, "filter.component_types", f.ComponentTypes)
	if err == nil {
		err = validateNames(ArgBType, "filter.attribute_types", f.AttributeTypes)
	}
	return edgeQuery{catalog.EdgeFilter{A: f.ComponentIDs, B: f.AttributeIDs, ATypes: f.ComponentTypes, BTypes: f.AttributeTypes}, err}
}

// validateNames checks the type names of a filter's list (the Go field list, "component_types"),
// which are the first or second types of the pairs (arg).
func validateNames(arg Arg, list string, names []string) error {
	for i, n := range names {
		if err := validateText(arg, n, false); err != nil {
			return atItem(err, list, i)
		}
	}
	return nil
}

// ParentChildAssociation is a directed edge between two components. Identity is the ordered
// (ParentID, ChildID) pair: the reversed pair is another edge.
type ParentChildAssociation struct {
	ParentID   int64
	ParentType string
	ChildID    int64
	ChildType  string
}

// ParentChildFilter selects edges: a nil list matches everything, an empty list nothing.
type ParentChildFilter struct {
	ParentIDs   []int64
	ChildIDs    []int64
	ParentTypes []string
	ChildTypes  []string
}

func (f ParentChildFilter) edges() edgeQuery {
	err := validateNames(ArgAType, "filter.parent_types", f.ParentTypes)
	if err == nil {
		err = validateNames(ArgBType, "filter.child_types", f.ChildTypes)
	}
	return edgeQuery{catalog.EdgeFilter{A: f.ParentIDs, B: f.ChildIDs, ATypes: f.ParentTypes, BTypes: f.ChildTypes}, err}
}

// AssociationCounts summarises an association table.
type AssociationCounts struct {
	Rows      int
	DistinctA int // components (supplemental) or parents (parent/child)
	DistinctB int // attributes or children
}

// TypePairCount is the number of associations between two type names.
type TypePairCount struct {
	AType, BType string
	Rows         int
}

// AddSupplementalAssociation attaches one attribute to one component.
func (s *Store) AddSupplementalAssociation(a SupplementalAssociation) error {
	return s.AddSupplementalAssociations([]SupplementalAssociation{a})
}

// AddSupplementalAssociations adds many, all or nothing. A pair already stored, or given
// twice, is ErrDuplicateAssociation — whatever the type names.
func (s *Store) AddSupplementalAssociations(as []SupplementalAssociation) error {
	return s.addEdges("add_supplemental_associations", catalog.Supplemental, edgesOf(as), "component_type", "attribute_type")
}

// AddParentChildAssociation adds one edge.
func (s *Store) AddParentChildAssociation(a ParentChildAssociation) error {
	return s.AddParentChildAssociations([]ParentChildAssociation{a})
}

// AddParentChildAssociations adds many edges, all or nothing; an edge already stored, or
// given twice, is ErrDuplicateAssociation.
func (s *Store) AddParentChildAssociations(as []ParentChildAssociation) error {
	return s.addEdges("add_parent_child_associations", catalog.ParentChild, edgesOf(as), "parent_type", "child_type")
}

func (a SupplementalAssociation) edge() catalog.Edge {
	return catalog.Edge{A: a.ComponentID, AType: a.ComponentType, B: a.AttributeID, BType: a.AttributeType}
}

func (a ParentChildAssociation) edge() catalog.Edge {
	return catalog.Edge{A: a.ParentID, AType: a.ParentType, B: a.ChildID, BType: a.ChildType}
}

// edgesOf is the catalog's edges of either association type.
func edgesOf[A interface{ edge() catalog.Edge }](as []A) []catalog.Edge {
	edges := make([]catalog.Edge, len(as))
	for i, a := range as {
		edges[i] = a.edge()
	}
	return edges
}

// named gives an association type's error its own Go name ("component_type") as Detail.
func named(err error, name string) error {
	if e, ok := err.(*Error); ok {
		e.Detail = name
	}
	return err
}

func (s *Store) addEdges(op string, t catalog.EdgeTable, edges []catalog.Edge, aField, bField string) error {
	seen := make(map[[2]int64]int, len(edges))
	for i, e := range edges {
		if err := validateText(ArgAType, e.AType, true); err != nil {
			return withOp(op, atItem(named(err, aField), "items", i))
		}
		if err := validateText(ArgBType, e.BType, true); err != nil {
			return withOp(op, atItem(named(err, bField), "items", i))
		}
		pair := [2]int64{e.A, e.B}
		if j, dup := seen[pair]; dup {
			return atItem(newErr(ErrDuplicateAssociation, op, ArgLookup,
				"the pair (%d, %d) is also item %d of this call", e.A, e.B, j), "items", i)
		}
		seen[pair] = i
	}
	return s.mutate(op, func() error {
		err := s.cat.InsertEdges(t, edges)
		var de *catalog.DuplicateEdgeError
		if errors.As(err, &de) {
			return newErr(ErrDuplicateAssociation, "", ArgLookup, "%s", de.Detail)
		}
		s.unit.changes += len(edges)
		return wrapIO("", err, "writing %s", t.Name)
	})
}

// HasSupplementalAssociation reports whether the attribute is attached to the component.
func (s *Store) HasSupplementalAssociation(componentID, attributeID int64) (bool, error) {
	return s.hasEdge("has_supplemental_association", catalog.Supplemental, componentID, attributeID)
}

// HasParentChildAssociation reports whether the edge parent → child exists.
func (s *Store) HasParentChildAssociation(parentID, childID int64) (bool, error) {
	return s.hasEdge("has_parent_child_association", catalog.ParentChild, parentID, childID)
}

func (s *Store) hasEdge(op string, t catalog.EdgeTable, a, b int64) (bool, error) {
	if err := s.lock(op, false); err != nil {
		return false, err
	}
	defer s.mu.Unlock()
	ok, err := s.cat.HasEdge(t, a, b)
	return ok, wrapIO(op, err, "reading %s", t.Name)
}

// ListSupplementalAssociations returns the associations matching f, in insertion order.
func (s *Store) ListSupplementalAssociations(f SupplementalFilter) ([]SupplementalAssociation, error) {
	edges, err := s.listEdges("list_supplemental_associations", catalog.Supplemental, f.edges())
	out := make([]SupplementalAssociation, len(edges))
	for i, e := range edges {
		out[i] = SupplementalAssociation{e.A, e.AType, e.B, e.BType}
	}
	return out, err
}

// ListParentChildAssociations returns the edges matching f, in insertion order.
func (s *Store) ListParentChildAssociations(f ParentChildFilter) ([]ParentChildAssociation, error) {
	edges, err := s.listEdges("list_parent_child_associations", catalog.ParentChild, f.edges())
	out := make([]ParentChildAssociation, len(edges))
	for i, e := range edges {
		out[i] = ParentChildAssociation{e.A, e.AType, e.B, e.BType}
	}
	return out, err
}

func (s *Store) listEdges(op string, t catalog.EdgeTable, q edgeQuery) ([]catalog.Edge, error) {
	if q.err != nil {
		return nil, withOp(op, q.err)
	}
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	edges, err := s.cat.ListEdges(t, q.f)
	return edges, wrapIO(op, err, "reading %s", t.Name)
}

// ListAssociatedComponentIDs lists the distinct component ids of the supplemental
// associations matching f, ascending.
func (s *Store) ListAssociatedComponentIDs(f SupplementalFilter) ([]int64, error) {
	return s.edgeIDs("list_associated_component_ids", catalog.Supplemental, false, f.edges())
}

// ListAssociatedAttributeIDs lists the distinct attribute ids of the supplemental
// associations matching f, ascending.
func (s *Store) ListAssociatedAttributeIDs(f SupplementalFilter) ([]int64, error) {
	return s.edgeIDs("list_associated_attribute_ids", catalog.Supplemental, true, f.edges())
}

// ChildrenOf lists the children of a component, ascending.
func (s *Store) ChildrenOf(parentID int64) ([]int64, error) {
	return s.edgeIDs("children_of", catalog.ParentChild, true, edgeQuery{f: catalog.EdgeFilter{A: []int64{parentID}}})
}

// ParentsOf lists the parents of a component, ascending.
func (s *Store) ParentsOf(childID int64) ([]int64, error) {
	return s.edgeIDs("parents_of", catalog.ParentChild, false, edgeQuery{f: catalog.EdgeFilter{B: []int64{childID}}})
}

func (s *Store) edgeIDs(op string, t catalog.EdgeTable, b bool, q edgeQuery) ([]int64, error) {
	if q.err != nil {
		return nil, withOp(op, q.err)
	}
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	ids, err := s.cat.DistinctEdgeIDs(t, b, q.f)
	return ids, wrapIO(op, err, "reading %s", t.Name)
}

// RemoveSupplementalAssociations removes the associations matching f and returns how many.
// An empty filter removes them all.
func (s *Store) RemoveSupplementalAssociations(f SupplementalFilter) (int, error) {
	return s.removeEdges("remove_supplemental_associations", catalog.Supplemental, f.edges())
}

// RemoveParentChildAssociations removes the edges matching f and returns how many. An empty
// filter removes them all.
func (s *Store) RemoveParentChildAssociations(f ParentChildFilter) (int, error) {
	return s.removeEdges("remove_parent_child_associations", catalog.ParentChild, f.edges())
}

func (s *Store) removeEdges(op string, t catalog.EdgeTable, q edgeQuery) (int, error) {
	if q.err != nil {
		return 0, withOp(op, q.err)
	}
	var n int64
	err := s.mutate(op, func() error {
		var err error
		n, err = s.cat.DeleteEdges(t, q.f)
		s.unit.changes += int(n)
		return wrapIO("", err, "deleting from %s", t.Name)
	})
	return int(n), err
}

// ReplaceSupplementalComponentID moves every supplemental association of component old to
// component new; a pair that would then exist twice is ErrDuplicateAssociation and nothing
// changes. It returns the rows changed.
func (s *Store) ReplaceSupplementalComponentID(old, new int64) (int, error) {
	return s.replaceEdgeID("replace_supplemental_component_id", catalog.Supplemental, old, new, false)
}

// ReplaceParentChildID replaces component id old with new at both ends of every edge.
func (s *Store) ReplaceParentChildID(old, new int64) (int, error) {
	return s.replaceEdgeID("replace_parent_child_id", catalog.ParentChild, old, new, true)
}

func (s *Store) replaceEdgeID(op string, t catalog.EdgeTable, old, new int64, both bool) (int, error) {
	var n int64
	err := s.mutate(op, func() error {
		var err error
		n, err = s.cat.ReplaceEdgeID(t, old, new, both)
		var de *catalog.DuplicateEdgeError
		if errors.As(err, &de) {
			return newErr(ErrDuplicateAssociation, "", ArgNewID, "%s", de.Detail)
		}
		s.unit.changes += int(n)
		return wrapIO("", err, "updating %s", t.Name)
	})
	return int(n), err
}

// SupplementalAssociationCounts counts rows, distinct components and distinct attributes.
func (s *Store) SupplementalAssociationCounts() (AssociationCounts, error) {
	return s.edgeCounts("supplemental_association_counts", catalog.Supplemental)
}

// ParentChildAssociationCounts counts edges, distinct parents and distinct children.
func (s *Store) ParentChildAssociationCounts() (AssociationCounts, error) {
	return s.edgeCounts("parent_child_association_counts", catalog.ParentChild)
}

func (s *Store) edgeCounts(op string, t catalog.EdgeTable) (AssociationCounts, error) {
	if err := s.lock(op, false); err != nil {
		return AssociationCounts{}, err
	}
	defer s.mu.Unlock()
	rows, a, b, err := s.cat.EdgeCounts(t)
	return AssociationCounts{int(rows), int(a), int(b)}, wrapIO(op, err, "counting %s", t.Name)
}

// SupplementalAssociationCountsByType counts associations per (component type, attribute
// type).
func (s *Store) SupplementalAssociationCountsByType() ([]TypePairCount, error) {
	return s.edgeCountsByType("supplemental_association_counts_by_type", catalog.Supplemental)
}

// ParentChildAssociationCountsByType counts edges per (parent type, child type).
func (s *Store) ParentChildAssociationCountsByType() ([]TypePairCount, error) {
	return s.edgeCountsByType("parent_child_association_counts_by_type", catalog.ParentChild)
}

func (s *Store) edgeCountsByType(op string, t catalog.EdgeTable) ([]TypePairCount, error) {
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	tcs, err := s.cat.EdgeCountsByType(t)
	out := make([]TypePairCount, len(tcs))
	for i, tc := range tcs {
		out[i] = TypePairCount{tc.AType, tc.BType, int(tc.Rows)}
	}
	return out, wrapIO(op, err, "counting %s", t.Name)
}
