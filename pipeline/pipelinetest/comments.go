package pipelinetest

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"time"

	"github.com/prscout/prscout/pipeline"
)

// The Fake's comment store (pipeline.CommentStore and its optional
// extensions): comments per pull request, the account they are written
// as, and the setters tests use to arrange them.

// SetCommentURLs gives every comment the web link format makes of its id
// (format holds one %d), as Bitbucket's links.html.
func (f *Fake) SetCommentURLs(format string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.urlFmt = format
	return f
}

// SetAccount names the author of the comments CreateComment writes.
func (f *Fake) SetAccount(name string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.account = name
	return f
}

// SetSelf gives the Fake prscout's own account ids (pipeline.SelfIdentity)
// and makes CreateComment write as that account (AuthorAccount.AccountID
// the first id).
func (f *Fake) SetSelf(ids ...string) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.selfIDs = append([]string(nil), ids...)
	return f
}

// SelfAccountIDs implements pipeline.SelfIdentity (nil until SetSelf).
func (f *Fake) SelfAccountIDs(context.Context) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.selfIDs...)
}

// SetNow sets the clock CreateComment stamps CreatedOn with (the wall
// clock by default).
func (f *Fake) SetNow(now func() time.Time) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = now
	return f
}

// ShuffleComments makes ListComments answer in a random order drawn from
// seed (the port promises none).
func (f *Fake) ShuffleComments(seed int64) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shuffle = rand.New(rand.NewSource(seed))
	return f
}

// AddComment adds c to pull request prID as it is (Foreign, Deleted,
// Resolved and ParentID included), giving it the next id when it has none,
// and returns it.
func (f *Fake) AddComment(prID int, c pipeline.Comment) pipeline.Comment {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c.ID == 0 {
		f.nextID++
		c.ID = f.nextID
	}
	if c.URL == "" && f.urlFmt != "" {
		c.URL = fmt.Sprintf(f.urlFmt, c.ID)
	}
	c.Inline = cloneAnchor(c.Inline)
	f.comments[prID] = append(f.comments[prID], c)
	return c
}

// SetUnverified marks pull request prID's comments ids Unverified (their
// author could not be checked), as an adapter lists them then.
func (f *Fake) SetUnverified(prID int, ids ...int64) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.comments[prID] {
		if slices.Contains(ids, f.comments[prID][i].ID) {
			f.comments[prID][i].Unverified = true
		}
	}
	return f
}

// Comments returns pull request prID's comments in the order they were
// written, deleted ones included (marked Deleted, as Bitbucket lists them).
func (f *Fake) Comments(prID int) []pipeline.Comment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return cloneComments(f.comments[prID])
}

// ListComments implements pipeline.CommentStore.
func (f *Fake) ListComments(ctx context.Context, _ pipeline.Repo, prID int) ([]pipeline.Comment, error) {
	done, err := f.enter(ctx, OpListComments, strconv.Itoa(prID))
	if err != nil {
		return nil, err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	out := cloneComments(f.comments[prID])
	if f.shuffle != nil {
		f.shuffle.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out, nil
}

// CreateComment implements pipeline.CommentStore.
func (f *Fake) CreateComment(ctx context.Context, _ pipeline.Repo, prID int, c pipeline.NewComment) (pipeline.Comment, error) {
	done, err := f.enter(ctx, OpCreateComment, strconv.Itoa(prID))
	if err != nil {
		return pipeline.Comment{}, err
	}
	defer done()
	if f.CreateHook != nil {
		if err := f.CreateHook(ctx, prID, c); err != nil {
			return pipeline.Comment{}, err
		}
	}
	f.mu.Lock()
	account, now := f.account, time.Now()
	if f.now != nil {
		now = f.now()
	}
	var acct pipeline.Account
	if len(f.selfIDs) > 0 {
		acct.AccountID = f.selfIDs[0]
	}
	f.mu.Unlock()
	acct.DisplayName = account
	inline := c.Inline
	if c.ParentID > 0 {
		inline = nil // a reply sits in its parent's thread
	}
	return f.AddComment(prID, pipeline.Comment{Body: c.Body, Inline: inline, Author: account, ParentID: c.ParentID, CreatedOn: now, AuthorAccount: acct}), nil
}

// writable finds comment id for an update or delete: another account's
// comment is refused as Bitbucket refuses it (403), a deleted or unknown
// one wraps ErrNotFound.
func (f *Fake) writableLocked(prID int, id int64, op string) (*pipeline.Comment, error) {
	for i := range f.comments[prID] {
		c := &f.comments[prID][i]
		switch {
		case c.ID != id:
			continue
		case c.Foreign:
			return nil, fmt.Errorf("%s comment %d: another account's comment: %w", op, id, pipeline.ErrUpstream)
		case !c.Deleted:
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s comment %d: %w", op, id, pipeline.ErrNotFound)
}

// UpdateComment implements pipeline.CommentStore.
func (f *Fake) UpdateComment(ctx context.Context, _ pipeline.Repo, prID int, id int64, body string) (pipeline.Comment, error) {
	done, err := f.enter(ctx, OpUpdateComment, strconv.FormatInt(id, 10))
	if err != nil {
		return pipeline.Comment{}, err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.writableLocked(prID, id, "update")
	if err != nil {
		return pipeline.Comment{}, err
	}
	c.Body = body
	out := *c
	out.Inline = cloneAnchor(c.Inline)
	return out, nil
}

// DeleteComment implements pipeline.CommentStore: the comment stays listed,
// marked Deleted.
func (f *Fake) DeleteComment(ctx context.Context, _ pipeline.Repo, prID int, id int64) error {
	done, err := f.enter(ctx, OpDeleteComment, strconv.FormatInt(id, 10))
	if err != nil {
		return err
	}
	defer done()
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.writableLocked(prID, id, "delete")
	if err != nil {
		return err
	}
	c.Deleted = true
	return nil
}

func cloneAnchor(a *pipeline.InlineAnchor) *pipeline.InlineAnchor {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}

func cloneComments(cs []pipeline.Comment) []pipeline.Comment {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Inline = cloneAnchor(out[i].Inline)
	}
	return out
}
